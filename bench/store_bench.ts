/**
 * Store throughput on a real database file: events/s for 100,000 appends batched per step (after
 * a warm-up, the median of three rounds), and the latency of a single-event checkpoint commit
 * (p50, p99). Run: `deno task bench`.
 *
 * @module
 */
import { join } from "node:path";
import { openStore } from "../src/store/store.ts";
import { median, percentile, scratchFolder } from "./_measure.ts";

const TOTAL_EVENTS = 100_000;
const STEP_SIZES = [4, 8]; // events committed together per step
const CHECKPOINTS = 2_000;

await using dir = await scratchFolder("store-bench");
const store = openStore(join(dir.path, "verdict.db"));
store.runs.create({ id: "bench", config: {}, createdAt: 0 });
store.runs.createSession({ id: "checkpoints", run: "bench", task: "t", repeat: 0 });

const KINDS = [
  { kind: "model.response", payload: { content: "I will edit src/total.py", tokens: 120 } },
  { kind: "tool.intent", payload: { tool: "write_file", args: { path: "src/total.py" } } },
  { kind: "policy.decision", payload: { allowed: true, rule: 3 } },
  { kind: "tool.result", payload: { ok: true, output: "wrote 120 bytes" } },
];
const step = (n: number, size: number) =>
  Array.from({ length: size }, (_, i) => {
    const { kind, payload } = KINDS[i % KINDS.length];
    return { kind, payload: { ...payload, step: n } };
  });

/** Seconds to append `total` events in steps of `size` to a new session. */
function appendAll(session: string, size: number, total: number): number {
  store.runs.createSession({ id: session, run: "bench", task: session, repeat: 0 });
  const start = performance.now();
  for (let n = 0; n < total / size; n++) store.events.append(session, step(n, size));
  return (performance.now() - start) / 1000;
}

appendAll("warm-up", 4, 20_000); // compiled code, warm caches: what a long run sees
const batched = STEP_SIZES.map((size) => {
  const rounds = [0, 1, 2].map((round) =>
    appendAll(`batched-${size}-${round}`, size, TOTAL_EVENTS)
  );
  return { size, seconds: median(rounds), rounds };
});

const latencies: number[] = [];
for (let n = 0; n < CHECKPOINTS; n++) {
  const start = performance.now();
  store.events.append("checkpoints", [{ kind: "checkpoint", payload: { step: n } }]);
  latencies.push(performance.now() - start);
}
store.close();

for (const { size, seconds, rounds } of batched) {
  console.log(
    `batched appends, ${size} events per step: ${TOTAL_EVENTS} events in ${seconds.toFixed(2)} s ` +
      `(median of ${rounds.map((round) => round.toFixed(2)).join(", ")}) = ` +
      `${Math.round(TOTAL_EVENTS / seconds)} events/s (target >= 50000)`,
  );
}
console.log(
  `checkpoint commit: p50 ${percentile(latencies, 0.5).toFixed(3)} ms, ` +
    `p99 ${
      percentile(latencies, 0.99).toFixed(3)
    } ms over ${CHECKPOINTS} commits (target p99 <= 5 ms)`,
);
