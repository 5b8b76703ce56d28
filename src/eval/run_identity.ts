/**
 * Run ids: a short hash of the experiment's canonical preimage, so the same experiment always maps
 * to the same id. Running it again never overwrites the earlier record: the new record takes the
 * next free attempt suffix (`<id>-2`, `<id>-3`, ...).
 *
 * @module
 */
import { deriveId } from "../core/ids.ts";
import type { Store } from "../store/store.ts";

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
 * import { experimentId } from "./run_identity.ts";
 * const experiment = {
 *   suite_digest: "d", tasks: ["a"], repeat: 1, agent: "nop", model: null, settings: null, seed: 0,
 *   harness_version: "0.1.0",
 * };
 * console.assert(experimentId(experiment) === experimentId({ ...experiment }));
 * ```
 */
export function experimentId(experiment: Experiment): string {
  return deriveId("verdict.run/1", experiment);
}

/**
 * The id a new record of this experiment gets in a store: the base id if free, else the first
 * free attempt suffix.
 */
export function nextRunId(store: Store, experiment: Experiment): { id: string; attempt: number } {
  const base = experimentId(experiment);
  for (let attempt = 1;; attempt++) {
    const id = attempt === 1 ? base : `${base}-${attempt}`;
    if (store.runs.get(id) === undefined) return { id, attempt };
  }
}

/**
 * A session's id: derived from its run, task and repeat.
 *
 * @example
 * ```ts
 * import { sessionId } from "./run_identity.ts";
 * console.assert(sessionId("r1", "t", 0) !== sessionId("r1", "t", 1));
 * ```
 */
export function sessionId(run: string, task: string, repeat: number): string {
  return deriveId("verdict.session/1", { run, task, repeat });
}
