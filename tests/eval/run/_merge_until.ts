/**
 * A merge that stops dead at one of its steps: `_merge_until.ts POINT TARGET SHARD...` merges the
 * shard state folders into TARGET, signed with VERDICT_SIGNING_KEY, and at POINT prints
 * `at POINT` and blocks, so the test can kill it there with SIGKILL.
 *
 * @module
 */
import { join } from "node:path";
import { signingKey } from "../../../src/core/ed25519.ts";
import { type MergePoint, mergeShards } from "../../../src/eval/run/merge_shards.ts";
import { openStore } from "../../../src/store/store.ts";

const [point, target, ...homes] = Deno.args;
const sources = homes.map((home) => {
  const store = openStore(join(home, "verdict.db"));
  const run = store.runs.list()[0];
  return { argument: home, store, run, runDir: join(home, "runs", run.id), home };
});
const key = await signingKey(Deno.env.get("VERDICT_SIGNING_KEY")!);
const open = () => {
  Deno.mkdirSync(target, { recursive: true });
  return openStore(join(target, "verdict.db"));
};
await mergeShards(sources, target, open, {
  signingKey: key,
  at: (reached: MergePoint) => {
    if (reached !== point) return;
    Deno.stdout.writeSync(new TextEncoder().encode(`at ${reached}\n`));
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 60_000);
  },
});
Deno.stdout.writeSync(new TextEncoder().encode("ended\n"));
