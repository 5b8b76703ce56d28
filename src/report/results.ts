/**
 * `results.json` (schema `verdict.results/1`): the run and one object per finished trial, as
 * SPEC section 6 fixes. It is built from the store alone, so `verdict report` can rebuild it.
 *
 * @module
 */
import type { Store } from "../store/store.ts";
import type { RunRecord } from "../store/run_table.ts";

/** The schema tag of `results.json`. */
export const RESULTS_SCHEMA = "verdict.results/1";

/** One check or requirement as reported. */
export interface ReportedCheck {
  /** The check kind or requirement key. */
  kind: string;
  /** Whether it held. */
  passed: boolean;
  /** What was found. */
  detail: string;
  /** For requirements: only a model-driven run can meet it. */
  model_only?: boolean;
}

/** A grading script's run as reported. */
export interface ReportedScript {
  /** The script, relative to `tests/`. */
  script: string;
  /** Exit code. */
  exit_code: number;
  /** Killed at its deadline. */
  timed_out: boolean;
  /** The end of its output. */
  output: string;
}

/** One trial in `results.json` (also the stored result of its session). */
export interface TrialRecord {
  /** Task id. */
  task: string;
  /** Repeat index, from 0. */
  repeat: number;
  /** Session id. */
  session: string;
  /** Pass or fail. */
  verdict: "pass" | "fail";
  /** `pass`, `agent_failure`, `evaluator_error` or `infrastructure_error`. */
  bucket: "pass" | "agent_failure" | "evaluator_error" | "infrastructure_error";
  /** Why, in one line. */
  reason: string;
  /** Why the agent stopped, or null when it never ran. */
  stop_reason: string | null;
  /** Model steps. */
  steps: number;
  /** Tool calls. */
  tool_calls: number;
  /** Denied tool calls. */
  denied_calls: number;
  /** Context compactions. */
  compactions: number;
  /** Tokens used. */
  tokens: { input: number; output: number };
  /** Cost in USD, null when unknown. */
  cost_usd: number | null;
  /** The sealed end state's root, null when the trial never got that far. */
  end_state_root: string | null;
  /** The staged workspace's root. */
  initial_root: string | null;
  /** Paths added, removed or modified by the agent. */
  changed_paths: number;
  /** Wall time of the trial, in ms. */
  duration_ms: number;
  /** Built-in checks. */
  checks: ReportedCheck[];
  /** Requirements. */
  requirements: ReportedCheck[];
  /** The success script's run. */
  success: ReportedScript | null;
  /** The canary's run. */
  canary: ReportedScript | null;
}

/** The whole of `results.json`. */
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
    buckets: Record<string, number>;
  };
  /** One object per finished trial, by task then repeat. */
  trials: TrialRecord[];
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
  const sessions = store.runs.sessions(run.id);
  const trials = sessions
    .filter((session) => session.status === "finished" && session.result !== null)
    .map((session) => inDeclaredOrder(session.result as unknown as TrialRecord));
  const buckets: Record<string, number> = {
    pass: 0,
    agent_failure: 0,
    evaluator_error: 0,
    infrastructure_error: 0,
  };
  for (const trial of trials) buckets[trial.bucket]++;
  const passed = trials.filter((trial) => trial.verdict === "pass").length;
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
