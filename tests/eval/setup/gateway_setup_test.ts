/**
 * A trial's gateway as the run builds it (`trialGateways`), in a process of its own
 * (`_refused_calls_gateway.ts`), over a real state database and real HTTP: an agent that keeps
 * sending large calls past its budget costs the record a few hundred bytes a call, and the
 * gateway's process no more than their hashing.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { sha256Hex } from "../../../src/core/hash.ts";
import { all, EVENT } from "../../../src/store/event_catalogue.ts";
import { openStore } from "../../../src/store/store.ts";
import { scratchDir } from "../../_verdict.ts";
import { KEY } from "./_refused_calls_gateway.ts";

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

Deno.test("40 refused calls of 20 MB each grow the state folder by less than 20 MB and the gateway's process by less than 100 MB, under 400 MB", async () => {
  await using scratch = await scratchDir("refused-calls");
  const gateway = new Deno.Command("deno", {
    args: [
      "run",
      "--allow-read",
      "--allow-write",
      "--allow-net=127.0.0.1",
      "--allow-env",
      "--allow-sys",
      "tests/eval/setup/_refused_calls_gateway.ts",
      scratch.path,
    ],
    stdin: "piped",
    stdout: "piped",
  }).spawn();
  const lines = gateway.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const [port, base] = (await lines.read()).value!.trim().split(" ").slice(1).map(Number);
  const before = await folderBytes(scratch.path);
  const client = await new Deno.Command("deno", {
    args: ["eval", CLIENT, `http://127.0.0.1:${port}/v1/chat/completions`, KEY],
  }).output();
  await gateway.stdin.close();
  let rest = "";
  for (let read = await lines.read(); !read.done; read = await lines.read()) rest += read.value;
  await gateway.status;
  const printed = new TextDecoder().decode(client.stdout);
  assert.equal(printed, "400 400 400 400\n".repeat(10), new TextDecoder().decode(client.stderr));
  const grown = (await folderBytes(scratch.path)) - before;
  assert(grown < 20 * MB, `the state folder grew by ${(grown / MB).toFixed(1)} MB`);
  // None of them was read into memory: past what the budget could admit, each was only hashed.
  const peak = Number(/^peak (\d+)$/m.exec(rest)![1]);
  assert(peak < 400 * MB, `the gateway's process reached ${(peak / MB).toFixed(0)} MB`);
  assert(peak - base < 100 * MB, `it grew by ${((peak - base) / MB).toFixed(0)} MB`);
  const store = openStore(join(scratch.path, "verdict.db"));
  try {
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
