/**
 * A trial's gateway as the run builds it (`trialGateways`), over a real state database and real
 * HTTP: an agent that keeps sending large calls past its budget costs the record a few hundred
 * bytes a call.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { SplitMix64 } from "../../../src/core/rng.ts";
import { trialGateways } from "../../../src/eval/setup/gateway_setup.ts";
import { stageTask } from "../../../src/eval/trial/staged_task.ts";
import { all, EVENT } from "../../../src/store/event_catalogue.ts";
import { openStore } from "../../../src/store/store.ts";
import { loadTask } from "../../../src/task/load_task.ts";
import { PROJECT_ROOT, scratchDir } from "../../_verdict.ts";

const KEY = "dummy-key";
const MB = 1024 * 1024;

/** A Chat Completions body of about `size` bytes, streamed in 64 KiB chunks, led by `number`. */
function largeCall(number: number, size: number): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const chunk = encoder.encode("pad ".repeat(16 * 1024));
  let sent = 0;
  return new ReadableStream({
    start(controller) {
      controller.enqueue(
        encoder.encode(`{"model":"m","messages":[{"role":"user","content":"${number} `),
      );
    },
    pull(controller) {
      if (sent >= size) {
        controller.enqueue(encoder.encode('"}]}'));
        controller.close();
        return;
      }
      controller.enqueue(chunk);
      sent += chunk.byteLength;
    },
  });
}

async function folderBytes(folder: string): Promise<number> {
  let total = 0;
  for await (const entry of Deno.readDir(folder)) {
    if (entry.isFile) total += (await Deno.stat(join(folder, entry.name))).size;
  }
  return total;
}

Deno.test("40 refused calls of 20 MB each grow the state folder by less than 20 MB", async () => {
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
    // Four at a time, each body different (its number leads it), so none is stored once for all;
    // each is streamed from a small chunk, so that the client holds none of it.
    for (let batch = 0; batch < 10; batch++) {
      await Promise.all([0, 1, 2, 3].map(async (slot) => {
        const response = await fetch(url, {
          method: "POST",
          headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" },
          body: largeCall(batch * 4 + slot, 20 * MB),
        });
        assert.equal(response.status, 400, await response.text());
      }));
    }
    const grown = (await folderBytes(scratch.path)) - before;
    assert(grown < 20 * MB, `the state folder grew by ${(grown / MB).toFixed(1)} MB`);
    assert.equal(gateway.ledger.stop?.reason, "budget");
    const calls = all(store.events.read("s1"), EVENT.gatewayCall);
    assert.equal(calls.length, 40);
    for (const { payload } of calls) {
      assert.equal(payload.body.length, 1024);
      assert.match(payload.body_sha256 ?? "", /^[0-9a-f]{64}$/);
      assert(payload.body_bytes! > 20 * MB);
    }
  } finally {
    store.close();
  }
});
