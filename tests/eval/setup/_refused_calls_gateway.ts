/**
 * A trial's gateway (`trialGateways`, the scripted model, the token-budget task's 3,000 tokens)
 * served on 127.0.0.1 in a process of its own, as Verdict's process serves one, so that a test
 * reads that process's peak memory alone. Writes its record to `ARGS[0]/verdict.db` (session
 * `s1`). Prints `listening PORT RSS` once it serves, then, once its standard input ends,
 * `peak RSS`, the most it held while it served (sampled every 10 ms, in bytes), and exits.
 *
 * @module
 */
import { join } from "node:path";
import { SplitMix64 } from "../../../src/core/rng.ts";
import { trialGateways } from "../../../src/eval/setup/gateway_setup.ts";
import { stageTask } from "../../../src/eval/trial/staged_task.ts";
import { openStore } from "../../../src/store/store.ts";
import { loadTask } from "../../../src/task/load_task.ts";

/** The dummy key the gateway takes. */
export const KEY = "dummy-key";

if (import.meta.main) {
  const store = openStore(join(Deno.args[0], "verdict.db"));
  store.runs.create({ id: "r1", config: {}, createdAt: 0 });
  store.runs.createSession({ id: "s1", run: "r1", task: "token-budget", repeat: 0 });
  const staged = await stageTask(
    await loadTask(new URL("../../fixtures/token-budget", import.meta.url).pathname),
  );
  const gateway = await trialGateways({ kind: "scripted", faults: 0 }, null)({
    plan: { run: "r1", session: "s1", staged, repeat: 0 },
    key: KEY,
    record: (events) => void store.events.append("s1", events, 0),
    storeBlob: (text) => store.blobs.putText(text),
    signal: new AbortController().signal,
    rng: new SplitMix64(1),
  });
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    (request) => gateway.handler(request),
  );
  let peak = Deno.memoryUsage().rss;
  const sampling = setInterval(() => peak = Math.max(peak, Deno.memoryUsage().rss), 10);
  console.log(`listening ${server.addr.port} ${peak}`);
  for await (const _ of Deno.stdin.readable) { /* until the test is done */ }
  clearInterval(sampling);
  await server.shutdown();
  console.log(`peak ${Math.max(peak, Deno.memoryUsage().rss)}`);
  store.close();
}
