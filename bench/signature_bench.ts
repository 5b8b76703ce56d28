/**
 * Signing a run, measured against verifying it: a run of 10,000 events (100 sessions of 100) in a
 * real database file is verified unsigned (every hash chain and blob, as `verdict verify` does),
 * then signed, then its signature checked; each the median of five rounds, printed as ratios to
 * the unsigned verification measured in the same run. Run: `deno task bench:signature`.
 *
 * @module
 */
import { join } from "node:path";
import { signingKey } from "../src/core/ed25519.ts";
import { eventBlobReferences } from "../src/eval/run/event_references.ts";
import { checkRunSignature, signRun } from "../src/eval/run/run_signature.ts";
import { openStore } from "../src/store/store.ts";
import { verifyRun } from "../src/store/verify.ts";
import { median, scratchFolder } from "./_measure.ts";

const SESSIONS = 100;
const EVENTS_PER_SESSION = 100;
const ROUNDS = 5;

await using dir = await scratchFolder("signature-bench");
const store = openStore(join(dir.path, "verdict.db"));
store.runs.create({ id: "bench", config: { seed: 1 }, createdAt: 0 });
for (let s = 0; s < SESSIONS; s++) {
  const session = `session-${s}`;
  store.runs.createSession({ id: session, run: "bench", task: `task-${s}`, repeat: 0 });
  store.events.append(
    session,
    Array.from({ length: EVENTS_PER_SESSION }, (_, n) => ({
      kind: "tool.result",
      payload: { step: n, output: `result ${n} of ${session} `.repeat(8) },
    })),
  );
}
store.runs.setStatus("bench", "finished");
const run = store.runs.get("bench")!;
const key = await signingKey(btoa("bench-signing-key-of-32-bytes!!!"));

const timed = async (work: () => unknown): Promise<number> => {
  const rounds: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const start = performance.now();
    await work();
    rounds.push(performance.now() - start);
  }
  return median(rounds);
};
const verifyMs = await timed(() => verifyRun(store, "bench", eventBlobReferences(store.blobs)));
const signMs = await timed(() => signRun(store, run, key));
const checkMs = await timed(async () => {
  if ((await checkRunSignature(store, run)).state !== "signed") throw new Error("not signed");
});
store.close();

const events = SESSIONS * EVENTS_PER_SESSION;
console.log(
  `${events} events in ${SESSIONS} sessions: verifying unsigned ${verifyMs.toFixed(1)} ms; ` +
    `signing ${signMs.toFixed(1)} ms (${(signMs / verifyMs).toFixed(2)}x); checking the ` +
    `signature ${checkMs.toFixed(1)} ms (${(checkMs / verifyMs).toFixed(2)}x); verify of a ` +
    `signed run ${((verifyMs + checkMs) / verifyMs).toFixed(2)}x an unsigned one (median of ` +
    `${ROUNDS} rounds each)`,
);
