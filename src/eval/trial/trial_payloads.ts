/**
 * What a trial writes about itself, built in one place for the trial's phases and for resume,
 * which reads the same payloads back: the agent's outcome (`agent.stopped`), the grade
 * (`grading.finished`), and the trial's result as the store and `results.json` keep it.
 *
 * @module
 */
import type { AgentOutcome } from "../../agent/agent.ts";
import { AgentStartError, InfrastructureError } from "../../core/errors.ts";
import { usdToNumber } from "../../core/money.ts";
import type { Grade, ScriptRun } from "../../grading/grade.ts";
import { UnsealableWorkspaceError } from "../../engine/unsealable.ts";
import type { EVENT, EventPayload } from "../../store/event_catalogue.ts";
import type { ReportedScript, TrialRecord } from "../../store/trial_record.ts";

/** How far a trial got: what its result reports even when a later phase failed. */
export interface TrialProgress {
  /** How the agent ended, once it has. */
  outcome?: AgentOutcome;
  /** The sealed end state's root, once sealed. */
  endRoot: string | null;
  /** Paths the agent changed, once sealed. */
  changedPaths: number;
}

/**
 * The `agent.stopped` payload: enough to rebuild the outcome on resume.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ZERO_COUNTERS } from "../../store/run_counters.ts";
 * import { outcomePayload } from "./trial_payloads.ts";
 * const payload = outcomePayload({
 *   stopReason: "completed", counters: { ...ZERO_COUNTERS, costUsd: 12n }, tokens: { input: 1, output: 2 },
 * });
 * assert.equal(payload.counters.cost_usd, "12");
 * ```
 */
export function outcomePayload(outcome: AgentOutcome): EventPayload<typeof EVENT.agentStopped> {
  const { costUsd, ...counters } = outcome.counters;
  return {
    stop_reason: outcome.stopReason,
    detail: outcome.detail ?? null,
    counters: { ...counters, cost_usd: costUsd === null ? null : costUsd.toString() },
    tokens: outcome.tokens,
    ...(outcome.providerFailure ? { provider_failure: outcome.providerFailure } : {}),
  };
}

/**
 * Rebuilds an agent's outcome from its `agent.stopped` payload.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { outcomeFromPayload } from "./trial_payloads.ts";
 * const outcome = outcomeFromPayload({
 *   stop_reason: "completed", detail: null, tokens: { input: 1, output: 2 },
 *   counters: { steps: 1, toolCalls: 0, compactions: 0, deniedCalls: 0, totalTokens: 3, finished: true, resumed: false, cost_usd: "0" },
 * });
 * assert.equal(outcome.counters.costUsd, 0n);
 * ```
 */
export function outcomeFromPayload(
  payload: EventPayload<typeof EVENT.agentStopped>,
): AgentOutcome {
  const { cost_usd, ...counters } = payload.counters;
  return {
    stopReason: payload.stop_reason,
    ...(payload.detail === null ? {} : { detail: payload.detail }),
    tokens: payload.tokens,
    counters: { ...counters, costUsd: cost_usd === null ? null : BigInt(cost_usd) },
    ...(payload.provider_failure ? { providerFailure: payload.provider_failure } : {}),
  };
}

/**
 * A failed grade read with how the agent stopped. A trial whose provider failed some of its
 * agent's model calls is the provider's (`infrastructure_error`, the provider's words in the
 * reason); one stopped by its budget says so first (`stopped on its budget (...)`), so that its
 * failure is not read as the tests'. A grade that caught tampering stays the agent's whatever
 * else went wrong, and a pass stays a pass.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ZERO_COUNTERS } from "../../store/run_counters.ts";
 * import { withAgentStop } from "./trial_payloads.ts";
 * const failed = {
 *   verdict: "fail" as const, bucket: "agent_failure" as const, reason: "tests failed",
 *   checks: [], requirements: [], success: null, canary: null,
 * };
 * const outcome = { stopReason: "completed" as const, counters: ZERO_COUNTERS, tokens: { input: 0, output: 0 } };
 * const graded = withAgentStop(failed, {
 *   ...outcome, providerFailure: { calls: 1, first: "openai endpoint unavailable after 5 attempts: HTTP 500: down" },
 * });
 * assert.equal(graded.bucket, "infrastructure_error");
 * assert.match(graded.reason, /^the model provider failed 1 call: .*HTTP 500.*; tests failed$/);
 * const stopped = withAgentStop(failed, { ...outcome, stopReason: "budget", detail: "max_total_tokens 9 ..." });
 * assert.equal(stopped.reason, "stopped on its budget (max_total_tokens 9 ...); tests failed");
 * ```
 */
export function withAgentStop(graded: Grade, outcome: AgentOutcome): Grade {
  // A pass stays a pass, tampering the agent's, and a broken task (an evaluator error) the task's.
  if (graded.bucket !== "agent_failure" || graded.reason.startsWith("tampering")) return graded;
  const failure = outcome.providerFailure;
  if (failure !== undefined) {
    const calls = `${failure.calls} call${failure.calls === 1 ? "" : "s"}`;
    return {
      ...graded,
      bucket: "infrastructure_error",
      reason: `the model provider failed ${calls}: ${failure.first}; ${graded.reason}`,
    };
  }
  if (outcome.stopReason === "budget") {
    return {
      ...graded,
      reason: `stopped on its budget (${outcome.detail ?? "a limit"}); ${graded.reason}`,
    };
  }
  return graded;
}

/**
 * The `grading.finished` payload. The scripts' output (timings, dates) differs from run to run;
 * it goes to the results, not the hash chain, so the same seed gives the same event hashes. Exit
 * codes are chained.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { gradePayload } from "./trial_payloads.ts";
 * const payload = gradePayload({
 *   verdict: "pass", bucket: "pass", reason: "ok", checks: [], requirements: [], canary: null,
 *   success: { script: "run.sh", exitCode: 0, timedOut: false, output: "12:00:01 ok" },
 * });
 * assert.deepEqual(payload.success, { script: "run.sh", exit_code: 0, timed_out: false });
 * ```
 */
export function gradePayload(graded: Grade): EventPayload<typeof EVENT.gradingFinished> {
  return {
    verdict: graded.verdict,
    bucket: graded.bucket,
    reason: graded.reason,
    checks: graded.checks,
    requirements: graded.requirements.map(({ key, passed, detail, modelOnly }) => ({
      key,
      passed,
      detail,
      modelOnly,
    })),
    success: chainedScript(graded.success),
    canary: chainedScript(graded.canary),
    ...(graded.reward === undefined ? {} : { reward: graded.reward }),
  };
}

/**
 * The grade of a trial that failed before grading could decide: an engine fault is
 * infrastructure's, an end state that cannot be sealed is the agent's doing, an agent program that
 * could not start and anything else are evaluator errors (the latter the harness's own failure).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { InfrastructureError } from "../../core/errors.ts";
 * import { failedGrade } from "./trial_payloads.ts";
 * assert.equal(failedGrade(new InfrastructureError("engine gone")).bucket, "infrastructure_error");
 * assert.equal(failedGrade(new Error("bug")).reason, "the harness failed: bug");
 * ```
 */
export function failedGrade(error: unknown): Grade {
  const infrastructure = error instanceof InfrastructureError;
  const unsealable = error instanceof UnsealableWorkspaceError;
  const unstartable = error instanceof AgentStartError;
  const reason = error instanceof Error ? error.message : String(error);
  return {
    verdict: "fail",
    bucket: infrastructure
      ? "infrastructure_error"
      : unsealable
      ? "agent_failure"
      : "evaluator_error",
    reason: infrastructure || unsealable || unstartable ? reason : `the harness failed: ${reason}`,
    checks: [],
    requirements: [],
    success: null,
    canary: null,
  };
}

/**
 * A trial's result as the store and `results.json` keep it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { failedGrade, trialRecord } from "./trial_payloads.ts";
 * const record = trialRecord(
 *   { task: "fix-slugify", repeat: 0, session: "s1", initialRoot: "0".repeat(64) },
 *   { endRoot: null, changedPaths: 0 },
 *   failedGrade(new Error("bug")),
 *   12.4,
 * );
 * assert.equal(record.duration_ms, 12);
 * assert.equal(record.stop_reason, null);
 * ```
 */
export function trialRecord(
  trial: { task: string; repeat: number; session: string; initialRoot: string },
  progress: TrialProgress,
  graded: Grade,
  durationMs: number,
): TrialRecord {
  const { outcome } = progress;
  const counters = outcome?.counters;
  return {
    task: trial.task,
    repeat: trial.repeat,
    session: trial.session,
    verdict: graded.verdict,
    bucket: graded.bucket,
    reason: graded.reason,
    stop_reason: outcome?.stopReason ?? null,
    steps: counters?.steps ?? 0,
    tool_calls: counters?.toolCalls ?? 0,
    denied_calls: counters?.deniedCalls ?? 0,
    compactions: counters?.compactions ?? 0,
    tokens: outcome?.tokens ?? { input: 0, output: 0 },
    cost_usd: counters?.costUsd == null ? null : usdToNumber(counters.costUsd),
    end_state_root: progress.endRoot,
    initial_root: trial.initialRoot,
    changed_paths: progress.changedPaths,
    duration_ms: Math.round(durationMs),
    checks: graded.checks,
    requirements: graded.requirements.map((requirement) => ({
      kind: requirement.key,
      passed: requirement.passed,
      detail: requirement.detail,
      model_only: requirement.modelOnly,
    })),
    success: graded.success && reportedScript(graded.success),
    canary: graded.canary && reportedScript(graded.canary),
    ...(graded.reward === undefined ? {} : { reward: graded.reward }),
  };
}

function reportedScript(run: ScriptRun): ReportedScript {
  return {
    script: run.script,
    exit_code: run.exitCode,
    timed_out: run.timedOut,
    output: run.output,
    ...(run.tests ? { tests: run.tests } : {}),
  };
}

function chainedScript(run: ScriptRun | null): Omit<ReportedScript, "output"> | null {
  if (run === null) return null;
  const { output: _output, ...chained } = reportedScript(run);
  return chained;
}
