/**
 * What `verdict view` shows, as JSON the page draws: the runs of a state folder, one run (its
 * results and statistics, the trials still going), and one trial's whole story. The server answers
 * these for a live state folder; a static bundle embeds them.
 *
 * @module
 */
import { buildResults, type Results } from "../report/results.ts";
import { runLabel } from "../report/run_label.ts";
import { listRuns, newestFirst, type RunListing } from "../report/run_listing.ts";
import { dollars } from "../report/stats_text.ts";
import { readTrajectory } from "../report/trajectory.ts";
import type { Trajectory } from "../report/trajectory_types.ts";
import { type RunStats, runStats } from "../stats/run_stats.ts";
import type { Store } from "../store/store.ts";

/** A run in the runs list: the `verdict runs` listing and its label. */
export type ListedRun = RunListing & { label: string };

/** One run as the viewer shows it. */
export interface RunView {
  /** Its agent and model, for people. */
  label: string;
  /** How many trials it plans (tasks times repeats); null when its configuration does not say. */
  planned: number | null;
  /** Its results, as `results.json` has them. */
  results: Results;
  /** Its statistics: pass rates, intervals, pass@k and pass^k per task. */
  stats: RunStats;
  /** Its whole cost in dollars, rounded in decimal (`$0.001200`), or `unknown`. */
  cost: string;
}

/** One trial as the viewer shows it. */
export interface TrialView {
  /** The run it belongs to. */
  run: string;
  /** That run's label. */
  label: string;
  /** Everything recorded of it. */
  trajectory: Trajectory;
}

/**
 * The runs of `store`, newest first, each labelled by agent and model.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openStore } from "../store/store.ts";
 * import { runsView } from "./view_data.ts";
 * const store = openStore(":memory:");
 * store.runs.create({ id: "r1", config: { agent: "loop", model: "scripted" }, createdAt: 0 });
 * assert.equal(runsView(store)[0].label, "loop, scripted");
 * ```
 */
export function runsView(store: Store): ListedRun[] {
  const labels = new Map(store.runs.list().map((run) => [run.id, runLabel(run.config)]));
  return listRuns(store).map((run) => ({ ...run, label: labels.get(run.id) ?? run.agent }));
}

/**
 * One run by its exact id (or `latest`, the newest), or undefined when there is none.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openStore } from "../store/store.ts";
 * import { runView } from "./view_data.ts";
 * const store = openStore(":memory:");
 * store.runs.create({ id: "r1", config: { agent: "oracle", tasks: ["a", "b"], repeat: 2 }, createdAt: 0 });
 * assert.equal(runView(store, "r1")?.planned, 4);
 * assert.equal(runView(store, "r2"), undefined);
 * ```
 */
export function runView(store: Store, id: string): RunView | undefined {
  const run = id === "latest" ? newestFirst(store.runs.list())[0] : store.runs.get(id);
  if (run === undefined) return undefined;
  const results = buildResults(store, run);
  const stats = runStats(results.trials);
  const { tasks, repeat, shard } = run.config as Record<string, unknown>;
  const counted = Array.isArray(tasks) && typeof repeat === "number" && shard === undefined;
  return {
    label: runLabel(run.config),
    planned: counted ? tasks.length * repeat : null,
    results,
    stats,
    cost: dollars(stats.overall.cost_usd.total),
  };
}

/**
 * One trial by its exact session id, or undefined when there is none.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openStore } from "../store/store.ts";
 * import { trialView } from "./view_data.ts";
 * const store = openStore(":memory:");
 * store.runs.create({ id: "r1", config: { agent: "oracle" }, createdAt: 0 });
 * store.runs.createSession({ id: "s1", run: "r1", task: "t", repeat: 0 });
 * assert.equal(trialView(store, "s1")?.trajectory.task, "t");
 * ```
 */
export function trialView(store: Store, session: string): TrialView | undefined {
  const record = store.runs.session(session);
  if (record === undefined) return undefined;
  const run = store.runs.get(record.run);
  return {
    run: record.run,
    label: run === undefined ? "?" : runLabel(run.config),
    trajectory: readTrajectory(store, record),
  };
}
