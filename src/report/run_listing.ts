/**
 * The runs of a state folder as `verdict runs` lists them: newest first, each with what it ran
 * (agent, model, tasks) and how it went (status, trials, passes), filtered by agent, model or
 * status.
 *
 * @module
 */
import type { RunRecord, RunStatus } from "../store/run_table.ts";
import type { Store } from "../store/store.ts";

/** One run in the listing. */
export interface RunListing {
  /** The run id. */
  id: string;
  /** When it was created, ISO 8601. */
  created_at: string;
  /** Its status. */
  status: RunStatus;
  /** The agent it ran. */
  agent: string;
  /** The model, or null for an agent with none. */
  model: string | null;
  /** How many tasks it selected. */
  tasks: number;
  /** Its trials (last attempts), and how many have a verdict and passed. */
  trials: number;
  /** Trials with a verdict. */
  finished: number;
  /** Trials that passed. */
  passed: number;
  /** Passed over finished; null before any trial finished. */
  pass_rate: number | null;
  /** `K/N` for a shard run. */
  shard?: string;
}

/** What to keep. */
export interface RunFilter {
  /** The agent's name, with or without its version (`claude-code` matches `claude-code@2.1.3`). */
  agent?: string;
  /** The model spec, exactly. */
  model?: string;
  /** The status. */
  status?: RunStatus;
}

/**
 * The runs of `store`, newest first, that pass `filter`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openStore } from "../store/store.ts";
 * import { listRuns } from "./run_listing.ts";
 * const store = openStore(":memory:");
 * store.runs.create({ id: "old", config: { agent: "nop", model: null, tasks: ["a"] }, createdAt: 1 });
 * store.runs.create({ id: "new", config: { agent: "loop", model: "scripted", tasks: [] }, createdAt: 2 });
 * assert.deepEqual(listRuns(store).map((run) => run.id), ["new", "old"]);
 * assert.deepEqual(listRuns(store, { agent: "nop" }).map((run) => run.id), ["old"]);
 * ```
 */
export function listRuns(store: Store, filter: RunFilter = {}): RunListing[] {
  return newestFirst(store.runs.list()).map((run) => listing(store, run)).filter((run) =>
    (filter.agent === undefined || run.agent === filter.agent ||
      run.agent.startsWith(`${filter.agent}@`)) &&
    (filter.model === undefined || run.model === filter.model) &&
    (filter.status === undefined || run.status === filter.status)
  );
}

/**
 * Runs ordered newest first (by creation, then id).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { newestFirst } from "./run_listing.ts";
 * const runs = [{ id: "a", createdAt: 1 }, { id: "b", createdAt: 2 }];
 * assert.deepEqual(newestFirst(runs).map((run) => run.id), ["b", "a"]);
 * ```
 */
export function newestFirst<T extends { id: string; createdAt: number }>(runs: readonly T[]): T[] {
  return [...runs].sort((a, b) =>
    b.createdAt - a.createdAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0)
  );
}

function listing(store: Store, run: RunRecord): RunListing {
  const config = run.config;
  const verdicts = store.runs.trialVerdicts(run.id);
  const passed = verdicts.filter((trial) => trial.verdict === "pass").length;
  const shard = config.shard as { index: number; count: number } | undefined;
  return {
    id: run.id,
    created_at: new Date(run.createdAt).toISOString(),
    status: run.status,
    agent: typeof config.agent === "string" ? config.agent : "?",
    model: typeof config.model === "string" ? config.model : null,
    tasks: Array.isArray(config.tasks) ? config.tasks.length : 0,
    trials: store.runs.sessions(run.id).length,
    finished: verdicts.length,
    passed,
    pass_rate: verdicts.length === 0 ? null : passed / verdicts.length,
    ...(shard ? { shard: `${shard.index}/${shard.count}` } : {}),
  };
}
