/**
 * Test helper: a run's recorded configuration, as `runs.config` holds it, for tests that build a
 * run record by hand; `overrides` replace its fields.
 *
 * @module
 */

/** A recorded configuration of a nop run over tasks `a` and `b`. */
const BASE = {
  suite_digest: "d",
  tasks: ["a", "b"],
  repeat: 1,
  agent: "nop",
  model: null,
  settings: null,
  seed: 0,
  harness_version: "0.1.0",
  attempt: 1,
  concurrency: 1,
  paths: ["tasks"],
  task_dirs: {} as Record<string, string>,
  categories: {} as Record<string, string>,
};

/** {@linkcode BASE} with `overrides` applied. */
export function recordedRunConfig(overrides: Partial<typeof BASE> = {}): typeof BASE {
  return { ...BASE, ...overrides };
}
