/**
 * A trial's gateway as the run builds it (`trialGateways`), over a real state database and real
 * HTTP: an agent that keeps sending large calls past its budget costs the record a few hundred
 * bytes a call, and the process no more than their hashing.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { sha256Hex } from "../../../src/core/hash.ts";
import { SplitMix64 } from "../../../src/core/rng.ts";
import { trialGateways } from "../../../src/eval/setup/gateway_setup.ts";
import { stageTask } from "../../../src/eval/trial/staged_task.ts";
import { all, EVENT } from "../../../src/store/event_catalogue.ts";
import { openStore } from "../../../src/store/store.ts";
import { loadTask } from "../../../src/task/load_task.ts";
import { PROJECT_ROOT, scratchDir } from "../../_verdict.ts";

const KEY = "dummy-key";
const MB = 1024 * 1024;

/**
 * The agent, in a process of its own as in a container: 40 Chat Completions calls of about 20 MB,
 * four at a time, each body different (its number leads it) and streamed from one small chunk;
 * prints each answer's status.
 */
const CLIENT = `
const [url, key] = Deno.args;
const encoder = new TextEncoder();
const chunk = encoder.encode("pad ".repeat(16 * 1024));
function body(number) {
  let sent = 0;
  return new ReadableStream({
    start(controller) {
      controller.enqueue(encoder.encode('{"model":"m","messages":[{"role":"user","content":"' + number + " "));
    },
    pull(controller) {
      if (sent >= 20 * 1024 * 1024) {
        controller.enqueue(encoder.encode('"}]}'));
        controller.close();
        return;
      }
      controller.enqueue(chunk);
      sent += chunk.byteLength;
    },
  });
}
for (let batch = 0; batch < 10; batch++) {
  const statuses = await Promise.all([0, 1, 2, 3].map(async (slot) => {
    const response = await fetch(url, {
      method: "POST",
      headers: { authorization: "Bearer " + key, "content-type": "application/json" },
      body: body(batch * 4 + slot),
    });
    await response.body?.cancel();
    return response.status;
  }));
  console.log(statuses.join(" "));
}
`;

async function folderBytes(folder: string): Promise<number> {
  let total = 0;
  for await (const entry of Deno.readDir(folder)) {
    if (entry.isFile) total += (await Deno.stat(join(folder, entry.name))).size;
  }
  return total;
}

Deno.test("40 refused calls of 20 MB each grow the state folder by less than 20 MB and the process by less than 100 MB, under 400 MB", async () => {
  await using scratch = await scratchDir("refused-calls");
  const store = openStore(join(scratch.path, "verdict.db"));
  try {
    store.runs.create({ id: "r1", config: {}, createdAt: 0 });
    store.runs.createSession({ id: "s1", run: "r1", task: "token-budget", repeat: 0 });
    // max_total_tokens 3000: a 20 MB call's input bound alone is past it.
    const staged = await stageTask(
      await loadTask(join(PROJECT_ROOT, "tests/fixtures/token-budget")),
    );
    const gateway = await trialGateways({ kind: "scripted", faults: 0 }, null)({
      plan: { run: "r1", session: "s1", staged, repeat: 0 },
      key: KEY,
      record: (events) => void store.events.append("s1", events, 0),
      storeBlob: (text) => store.blobs.putText(text),
      signal: new AbortController().signal,
      rng: new SplitMix64(1),
    });
    await using server = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen() {} },
      (request) => gateway.handler(request),
    );
    const url = `http://127.0.0.1:${server.addr.port}/v1/chat/completions`;

    const before = await folderBytes(scratch.path);
    const base = Deno.memoryUsage().rss;
    let most = base;
    const sampling = setInterval(() => most = Math.max(most, Deno.memoryUsage().rss), 20);
    const client = await new Deno.Command("deno", { args: ["eval", CLIENT, url, KEY] }).output()
      .finally(() => clearInterval(sampling));
    const printed = new TextDecoder().decode(client.stdout);
    assert.equal(printed, "400 400 400 400\n".repeat(10), new TextDecoder().decode(client.stderr));
    const grown = (await folderBytes(scratch.path)) - before;
    assert(grown < 20 * MB, `the state folder grew by ${(grown / MB).toFixed(1)} MB`);
    // None of them was read into memory: past what the budget could admit, each was only hashed.
    // (This process also holds the test runner: its growth is what the calls cost.)
    assert(most < 400 * MB, `the process reached ${(most / MB).toFixed(0)} MB`);
    assert(most - base < 100 * MB, `the process grew by ${((most - base) / MB).toFixed(0)} MB`);
    assert.equal(gateway.ledger.stop?.reason, "budget");
    const calls = all(store.events.read("s1"), EVENT.gatewayCall);
    assert.equal(calls.length, 40);
    for (const { payload } of calls) {
      assert.equal(payload.body.length, 1024);
      assert.match(payload.body_sha256 ?? "", /^[0-9a-f]{64}$/);
      assert(payload.body_bytes! > 20 * MB);
    }
    // The hash is the whole body's: the one the client sent as call 7, rebuilt here.
    const seventh = calls.find(({ payload }) => payload.body.includes('"content":"7 '))!.payload;
    const rebuilt = new TextEncoder().encode(
      `{"model":"m","messages":[{"role":"user","content":"7 ${"pad ".repeat(16 * 1024 * 320)}"}]}`,
    );
    assert.equal(seventh.body_bytes, rebuilt.byteLength);
    assert.equal(seventh.body_sha256, sha256Hex(rebuilt));
  } finally {
    store.close();
  }
});
