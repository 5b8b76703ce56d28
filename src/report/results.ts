/**
 * `results.json` (schema `verdict.results/1`): the run and one object per finished trial, as
 * SPEC section 6 fixes. It is built from the store alone, so `verdict report` can rebuild it.
 *
 * @module
 */
import type { Store } from "../store/store.ts";
import type { RunRecord, SessionRecord } from "../store/run_table.ts";
import { type Bucket, BUCKETS, type TrialRecord } from "../store/trial_record.ts";

/** The schema tag of `results.json`. */
export const RESULTS_SCHEMA = "verdict.results/1";

/**
 * The run's keys a report lists as the run's facts, in order (those a run has: `model` is absent
 * for an agent that needs none).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { RUN_FACTS } from "./results.ts";
 * assert.equal(RUN_FACTS[0], "status");
 * ```
 */
export const RUN_FACTS = [
  "status",
  "agent",
  "model",
  "seed",
  "repeat",
  "suite_digest",
  "harness_version",
  "created_at",
] as const;

/**
 * The whole of `results.json`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openStore } from "../store/store.ts";
 * import { buildResults, type Results } from "./results.ts";
 * const store = openStore(":memory:");
 * store.runs.create({ id: "r1", config: { agent: "nop" }, createdAt: 0 });
 * const results: Results = buildResults(store, store.runs.get("r1")!);
 * assert.equal(results.schema, "verdict.results/1");
 * assert.equal(results.run.agent, "nop");
 * assert.equal(results.summary.pass_rate, null); // no trial finished
 * ```
 */
export interface Results {
  /** Always {@linkcode RESULTS_SCHEMA}. */
  schema: typeof RESULTS_SCHEMA;
  /** The run. */
  run: {
    id: string;
    status: string;
    created_at: string;
  } & Record<string, unknown>;
  /** Counts over the finished trials. */
  summary: {
    trials: number;
    finished: number;
    passed: number;
    failed: number;
    pass_rate: number | null;
    buckets: Record<Bucket, number>;
  };
  /** One object per finished trial, by task then repeat. */
  trials: TrialRecord[];
  /**
   * The trials with no verdict yet (the run was interrupted or is still going), by task then
   * repeat; absent when every trial finished (as in runs made before it was added).
   */
  unfinished?: UnfinishedTrial[];
  /**
   * The attempts that `resume --retry-errors` ran again, each ended in an infrastructure error,
   * by task, repeat and attempt; absent when no trial was retried. They are not counted above.
   */
  retried?: RetriedAttempt[];
}

/** An attempt of a trial that a later attempt replaced. */
export interface RetriedAttempt {
  /** The task id. */
  task: string;
  /** The repeat index, from 0. */
  repeat: number;
  /** Which attempt it was, from 0. */
  retry: number;
  /** Its session id. */
  session: string;
  /** Why it ended (its infrastructure error). */
  reason: string;
}

/** A trial that has no verdict yet. */
export interface UnfinishedTrial {
  /** The task id. */
  task: string;
  /** The repeat index, from 0. */
  repeat: number;
  /** Its session id. */
  session: string;
}

/**
 * Builds `results.json` for a run from the store.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openStore } from "../store/store.ts";
 * import { buildResults } from "./results.ts";
 * const store = openStore(":memory:");
 * store.runs.create({ id: "r1", config: { agent: "nop" }, createdAt: 0 });
 * assert(buildResults(store, store.runs.get("r1")!).summary.trials === 0);
 * ```
 */
export function buildResults(store: Store, run: RunRecord): Results {
  return resultsOf(run, store.runs.attempts(run.id));
}

/**
 * Builds `results.json` for a run from its attempts, ordered by task, repeat and retry as
 * `store.runs.attempts` gives them (a trial counts by its last attempt): for a part of a record,
 * such as one shard's sessions of a merged run.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { resultsOf } from "./results.ts";
 * const run = { id: "r1", config: {}, createdAt: 0, status: "finished" as const };
 * assert.equal(resultsOf(run, []).summary.pass_rate, null);
 * ```
 */
export function resultsOf(run: RunRecord, attempts: readonly SessionRecord[]): Results {
  const sessions = attempts.filter((session, index) => {
    const next = attempts[index + 1];
    return next === undefined || next.task !== session.task || next.repeat !== session.repeat;
  });
  const trials = sessions.flatMap((session) =>
    session.status === "finished" && session.result !== null
      ? [inDeclaredOrder(session.result)]
      : []
  );
  const buckets = {} as Record<Bucket, number>;
  for (const bucket of BUCKETS) buckets[bucket] = 0;
  for (const trial of trials) buckets[trial.bucket]++;
  const unfinished = sessions.filter((session) =>
    session.status !== "finished" || session.result === null
  ).map((session) => ({ task: session.task, repeat: session.repeat, session: session.id }));
  const passed = trials.filter((trial) => trial.verdict === "pass").length;
  const last = new Set(sessions.map((session) => session.id));
  const retried = attempts.filter((session) => !last.has(session.id))
    .map(({ task, repeat, retry, id, result }) => ({
      task,
      repeat,
      retry,
      session: id,
      reason: result?.reason ?? "(no verdict)",
    }));
  return {
    schema: RESULTS_SCHEMA,
    run: {
      id: run.id,
      status: run.status,
      created_at: new Date(run.createdAt).toISOString(),
      ...run.config,
    },
    summary: {
      trials: sessions.length,
      finished: trials.length,
      passed,
      failed: trials.length - passed,
      pass_rate: trials.length === 0 ? null : passed / trials.length,
      buckets,
    },
    trials,
    ...(unfinished.length === 0 ? {} : { unfinished }),
    ...(retried.length === 0 ? {} : { retried }),
  };
}

const TRIAL_KEYS: readonly (keyof TrialRecord)[] = [
  "task",
  "repeat",
  "session",
  "verdict",
  "bucket",
  "reason",
  "stop_reason",
  "steps",
  "tool_calls",
  "denied_calls",
  "compactions",
  "tokens",
  "cost_usd",
  "end_state_root",
  "initial_root",
  "changed_paths",
  "duration_ms",
  "checks",
  "requirements",
  "success",
  "canary",
];

// Stored results are canonical JSON (keys sorted); results.json reads better in declared order.
function inDeclaredOrder(trial: TrialRecord): TrialRecord {
  const ordered: Record<string, unknown> = {};
  for (const key of TRIAL_KEYS) ordered[key] = trial[key];
  for (const [key, value] of Object.entries(trial)) if (!(key in ordered)) ordered[key] = value;
  return ordered as unknown as TrialRecord;
}
