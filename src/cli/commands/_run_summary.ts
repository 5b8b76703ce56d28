/**
 * The closing lines of `eval` and `resume`, and their exit code.
 *
 * @module
 */
import { join } from "node:path";
import { ExitCode, type ExitCodeValue } from "../../core/errors.ts";
import type { EvalOutcome } from "../../eval/run/run_lifecycle.ts";
import { interruptedExitCode } from "../runtime.ts";

/** Prints the summary of a finished or interrupted run. */
export function printSummary(write: (text: string) => void, outcome: EvalOutcome): void {
  const { summary } = outcome.results;
  const rate = summary.pass_rate === null
    ? ""
    : `, pass rate ${(summary.pass_rate * 100).toFixed(1)}%`;
  const errors = summary.buckets.infrastructure_error + summary.buckets.evaluator_error;
  write(
    `${
      outcome.interrupted ? "interrupted: " : ""
    }${summary.finished} of ${summary.trials} trials: ` +
      `${summary.passed} passed, ${summary.failed} failed${rate}` +
      (errors > 0
        ? ` (${summary.buckets.infrastructure_error} infrastructure, ${summary.buckets.evaluator_error} evaluator errors)`
        : "") +
      `\nresults: ${join(outcome.runDir, "results.json")}\n`,
  );
}

/**
 * 130 interrupted (143 by SIGTERM); 3 when any trial ended in an infrastructure or evaluator
 * error; else 0.
 */
export function exitCodeOf(outcome: EvalOutcome): ExitCodeValue {
  if (outcome.interrupted) return interruptedExitCode(outcome.interruption);
  const { buckets } = outcome.results.summary;
  return buckets.infrastructure_error + buckets.evaluator_error > 0
    ? ExitCode.infrastructure
    : ExitCode.yes;
}
