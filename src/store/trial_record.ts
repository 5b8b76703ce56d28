/**
 * A finished trial's result as the store keeps it and `results.json` reports it (SPEC section 6):
 * its verdict, failure bucket, counters and the grading that decided it. Typed once, here, below
 * the store, so the store writes and returns it typed and every layer above reads the same shape;
 * a stored result is checked against its schema when read back.
 *
 * @module
 */
import { z } from "zod";
import type { Expect, Same } from "../core/same_type.ts";

/** A trial's verdict. */
export const VERDICTS = ["pass", "fail"] as const;

/** `pass` or `fail`. */
export type Verdict = (typeof VERDICTS)[number];

/** The failure buckets of SPEC section 6, and `pass`. */
export const BUCKETS = [
  "pass",
  "agent_failure",
  "evaluator_error",
  "infrastructure_error",
] as const;

/** `pass`, `agent_failure`, `evaluator_error` or `infrastructure_error`. */
export type Bucket = (typeof BUCKETS)[number];

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
  /** What its test runners reported (the success script's; absent when none did). */
  tests?: { ran: number; passed: number; failed: number; errors: number; skipped: number };
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
  verdict: Verdict;
  /** `pass`, `agent_failure`, `evaluator_error` or `infrastructure_error`. */
  bucket: Bucket;
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
  /** A Harbor task's reward, when its verifier wrote one. */
  reward?: number;
}

const REPORTED_CHECK_SCHEMA = z.object({
  kind: z.string(),
  passed: z.boolean(),
  detail: z.string(),
  model_only: z.boolean().optional(),
});

const REPORTED_SCRIPT_SCHEMA = z.object({
  script: z.string(),
  exit_code: z.number(),
  timed_out: z.boolean(),
  output: z.string(),
  tests: z.object({
    ran: z.number(),
    passed: z.number(),
    failed: z.number(),
    errors: z.number(),
    skipped: z.number(),
  }).optional(),
});

const TRIAL_RECORD_SCHEMA = z.object({
  task: z.string(),
  repeat: z.number().int().min(0),
  session: z.string(),
  verdict: z.enum(VERDICTS),
  bucket: z.enum(BUCKETS),
  reason: z.string(),
  stop_reason: z.string().nullable(),
  steps: z.number(),
  tool_calls: z.number(),
  denied_calls: z.number(),
  compactions: z.number(),
  tokens: z.object({ input: z.number(), output: z.number() }),
  cost_usd: z.number().nullable(),
  end_state_root: z.string().nullable(),
  initial_root: z.string().nullable(),
  changed_paths: z.number(),
  duration_ms: z.number(),
  checks: z.array(REPORTED_CHECK_SCHEMA),
  requirements: z.array(REPORTED_CHECK_SCHEMA),
  success: REPORTED_SCRIPT_SCHEMA.nullable(),
  canary: REPORTED_SCRIPT_SCHEMA.nullable(),
  reward: z.number().optional(),
});
type _SchemaMatchesTrialRecord = Expect<Same<z.output<typeof TRIAL_RECORD_SCHEMA>, TrialRecord>>;

/** The fields of a finished trial's result that statistics read, kept in columns too. */
export type TrialSummary = Pick<
  TrialRecord,
  | "task"
  | "repeat"
  | "verdict"
  | "bucket"
  | "reason"
  | "steps"
  | "tokens"
  | "cost_usd"
  | "duration_ms"
  | "reward"
>;

/**
 * The first problem with a stored trial result, as `field: what`, or undefined when it is one.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { trialRecordProblem } from "./trial_record.ts";
 * assert(trialRecordProblem({ verdict: "maybe" })!.length > 0);
 * ```
 */
export function trialRecordProblem(value: unknown): string | undefined {
  const parsed = TRIAL_RECORD_SCHEMA.safeParse(value);
  if (parsed.success) return undefined;
  const issue = parsed.error.issues[0];
  return `${issue.path.join(".") || "(the result)"}: ${issue.message}`;
}
