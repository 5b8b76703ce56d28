/**
 * Claiming a new record's run id: the experiment's id if no record has it, else the next free
 * attempt (`<id>-2`, ...), taken under its run folder's lock.
 *
 * @module
 */
import { join } from "node:path";
import type { Store } from "../../store/store.ts";
import { type Experiment, experimentId } from "../setup/run_identity.ts";
import { type RunLock, tryLockRun } from "./run_lock.ts";

/** A run id taken for a new record, with its run folder made and locked. */
export interface ClaimedRunId {
  /** The run id. */
  id: string;
  /** 1 for the base id, n for `<id>-n`. */
  attempt: number;
  /** The lock of `runs/<id>`, held until the run ends. */
  lock: RunLock;
}

/**
 * Takes the id a new record of this experiment gets in a store: the base id if free, else the
 * first free attempt suffix. Choosing the id and locking its run folder are one step: an id is
 * taken only under its folder's lock and only while no record has it, so two processes starting
 * the same experiment in one state folder at once get two attempts, never one shared run.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { claimRunId } from "./run_claim.ts";
 * import { openStore } from "../../store/store.ts";
 * const store = openStore(":memory:");
 * const experiment = {
 *   suite_digest: "d", tasks: ["a"], repeat: 1, agent: "nop", model: null, settings: null, seed: 0,
 *   harness_version: "0.1.0",
 * };
 * const runsDir = await Deno.makeTempDir();
 * const first = await claimRunId(store, experiment, runsDir);
 * store.runs.create({ id: first.id, config: experiment, createdAt: 0 });
 * const second = await claimRunId(store, experiment, runsDir);
 * assert.equal(second.id, `${first.id}-2`); // the same experiment again: the next attempt
 * first.lock.release();
 * second.lock.release();
 * await Deno.remove(runsDir, { recursive: true });
 * ```
 */
export async function claimRunId(
  store: Store,
  experiment: Experiment,
  runsDir: string,
): Promise<ClaimedRunId> {
  const base = experimentId(experiment);
  for (let attempt = 1;; attempt++) {
    const id = attempt === 1 ? base : `${base}-${attempt}`;
    if (store.runs.get(id) !== undefined) continue;
    const runDir = join(runsDir, id);
    await Deno.mkdir(runDir, { recursive: true });
    const lock = tryLockRun(runDir);
    // Held: another process is making this record (or sweeping this folder); take the next.
    if (lock === undefined) continue;
    // Made and finished by another process between the look and the lock.
    if (store.runs.get(id) !== undefined) {
      lock.release();
      continue;
    }
    return { id, attempt, lock };
  }
}
