/**
 * What grading saw of one failed trial, as Markdown: the checks and requirements that did not
 * hold, and the end of the success script's output (the canary's, when it passed, which it must
 * not), in a fence longer than any run of backticks in it.
 *
 * @module
 */
import type { ReportedCheck, ReportedScript, TrialRecord } from "../store/trial_record.ts";

/** The most output lines a report shows per script: its end, where the failures are. */
const OUTPUT_LINES = 15;

/** The lines of a failed trial's grading section. */
export function gradingMarkdown(trial: TrialRecord): string[] {
  const lines = [`### ${trial.task}#${trial.repeat}`, "", `${trial.reason}`];
  const failed = (label: string, checks: ReportedCheck[]) =>
    checks.filter((check) => !check.passed).map((check) =>
      `- ${label} \`${check.kind}\` did not hold: ${check.detail.replaceAll("\n", " ")}`
    );
  const held = [...failed("check", trial.checks), ...failed("requirement", trial.requirements)];
  if (held.length > 0) lines.push("", ...held);
  lines.push(...scriptBlock("success script", trial.success));
  if (trial.canary?.exit_code === 0 && !trial.canary.timed_out) {
    lines.push(...scriptBlock("canary (it must fail, and passed)", trial.canary));
  }
  return lines;
}

function scriptBlock(label: string, run: ReportedScript | null): string[] {
  if (run === null) return [];
  const ended = run.timed_out ? "killed at its deadline" : `exit code ${run.exit_code}`;
  const tests = run.tests
    ? `; tests: ${run.tests.ran} ran, ${run.tests.passed} passed, ${run.tests.failed} failed`
    : "";
  const lines = ["", `${label} \`${run.script}\`: ${ended}${tests}`];
  const output = run.output.trimEnd().split("\n");
  if (output.join("") === "") return lines;
  const cut = Math.max(0, output.length - OUTPUT_LINES);
  const longest = Math.max(0, ...(run.output.match(/`+/g) ?? []).map((ticks) => ticks.length));
  const fence = "`".repeat(Math.max(3, longest + 1));
  return [
    ...lines,
    "",
    fence,
    ...(cut > 0 ? [`... (${cut} earlier lines)`] : []),
    ...output.slice(cut),
    fence,
  ];
}
