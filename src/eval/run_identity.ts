/**
 * Run ids: a short hash of the experiment's canonical preimage, so the same experiment always maps
 * to the same id. Running it again never overwrites the earlier record: the new record takes the
 * next free attempt suffix (`<id>-2`, `<id>-3`, ...).
 *
 * @module
 */
import { join } from "node:path";
import { deriveId } from "../core/ids.ts";
import type { Store } from "../store/store.ts";
import { type RunLock, tryLockRun } from "./run_lock.ts";

/** What defines an experiment. */
export interface Experiment {
  /** The suite's digest. */
  suite_digest: string;
  /** The selected task ids, sorted. */
  tasks: string[];
  /** Repeats per task. */
  repeat: number;
  /** `loop`, `oracle` or `nop`. */
  agent: string;
  /** The model spec without secrets; null for agents that use none. */
  model: string | null;
  /** Settings that shape trajectories (base URL, policy, prices), without secrets. */
  settings: Record<string, unknown> | null;
  /** The seed. */
  seed: number;
  /** The harness version. */
  harness_version: string;
}

/**
 * The experiment's base id.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { experimentId } from "./run_identity.ts";
 * const experiment = {
 *   suite_digest: "d", tasks: ["a"], repeat: 1, agent: "nop", model: null, settings: null, seed: 0,
 *   harness_version: "0.1.0",
 * };
 * assert(experimentId(experiment) === experimentId({ ...experiment }));
 * ```
 */
export function experimentId(experiment: Experiment): string {
  return deriveId("verdict.run/1", experiment);
}

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
 * import { claimRunId } from "./run_identity.ts";
 * import { openStore } from "../store/store.ts";
 * const store = openStore(":memory:");
 * const experiment = {
 *   suite_digest: "d", tasks: ["a"], repeat: 1, agent: "nop", model: null, settings: null, seed: 0,
 *   harness_version: "0.1.0",
 * };
 * const { id, lock } = await claimRunId(store, experiment, ".verdict/runs");
 * console.log(id);
 * lock.release();
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

/**
 * A session's id: derived from its run, task and repeat.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { sessionId } from "./run_identity.ts";
 * assert(sessionId("r1", "t", 0) !== sessionId("r1", "t", 1));
 * ```
 */
export function sessionId(run: string, task: string, repeat: number): string {
  return deriveId("verdict.session/1", { run, task, repeat });
}
