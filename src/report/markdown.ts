/**
 * `report.md`: a run's summary, per-task pass rates with their Wilson intervals, pass@k, flaky
 * tasks, and every failure with its reason, as plain Markdown tables that render in any CI viewer.
 *
 * @module
 */
import { gradingMarkdown } from "./_grading_markdown.ts";
import type { RunStats } from "../stats/run_stats.ts";
import { type Results, RUN_FACTS } from "./results.ts";
import { dollars, percent } from "./stats_text.ts";

/**
 * Renders a run's results as Markdown; with `grading: false`, without what grading saw of each
 * failed trial (as Verdict wrote `report.md` before it showed that, which `verify` still accepts).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { renderMarkdown } from "./markdown.ts";
 * import { runStats } from "../stats/run_stats.ts";
 * const text = renderMarkdown({
 *   schema: "verdict.results/1",
 *   run: { id: "abc", status: "finished", created_at: "2026-01-01T00:00:00.000Z" },
 *   summary: {
 *     trials: 0, finished: 0, passed: 0, failed: 0, pass_rate: null,
 *     buckets: { pass: 0, agent_failure: 0, evaluator_error: 0, infrastructure_error: 0 },
 *   },
 *   trials: [],
 * }, runStats([]));
 * assert(text.startsWith("# Verdict run abc"));
 * ```
 */
export function renderMarkdown(
  results: Results,
  stats: RunStats,
  { grading = true }: { grading?: boolean } = {},
): string {
  const { run, summary } = results;
  const { overall } = stats;
  const ks = Object.keys(overall.pass_at_k);
  const lines = [
    `# Verdict run ${run.id}`,
    "",
    "| | |",
    "| --- | --- |",
    ...RUN_FACTS
      .filter((key) => run[key] !== undefined && run[key] !== null)
      .map((key) => `| ${key.replace("_", " ")} | ${cell(String(run[key]))} |`),
    "",
    "## Summary",
    "",
    `${summary.finished} of ${summary.trials} trials finished: **${summary.passed} passed**, ${summary.failed} failed` +
    (summary.pass_rate === null
      ? "."
      : `, pass rate ${percent(summary.pass_rate)} (95% interval ${percent(overall.ci_low)} to ${
        percent(overall.ci_high)
      }).`),
    "",
    ...(ks.length > 0
      ? [
        ks.map((k) => `pass@${k} ${percent(overall.pass_at_k[k])}`).join(" · ") + " · " +
        ks.map((k) => `pass^${k} ${percent(overall.pass_hat_k[k])}`).join(" · "),
        "",
      ]
      : []),
    `Cost: ${dollars(overall.cost_usd.total)} · tokens ${overall.tokens.total} · ` +
    `median steps ${overall.steps.median ?? "-"} · flaky: ${
      overall.flaky.length > 0 ? overall.flaky.join(", ") : "none"
    }` +
    (overall.reward
      ? ` · mean reward ${Number(overall.reward.mean.toFixed(4))} over ${overall.reward.n}`
      : ""),
    "",
    "| bucket | trials |",
    "| --- | ---: |",
    ...Object.entries(summary.buckets).map(([bucket, count]) => `| ${bucket} | ${count} |`),
    "",
    "## Tasks",
    "",
    `| task | passed | pass rate | 95% interval |${ks.map((k) => ` pass@${k} |`).join("")}`,
    `| --- | ---: | ---: | --- |${ks.map(() => " ---: |").join("")}`,
    ...stats.tasks.map((task) =>
      `| ${cell(task.task!)}${task.flaky ? " (flaky)" : ""} | ${task.passes}/${task.n} | ${
        percent(task.pass_rate)
      } | ` +
      `${percent(task.ci_low)} – ${percent(task.ci_high)} |${
        ks.map((k) => ` ${percent(task.pass_at_k[k])} |`).join("")
      }`
    ),
  ];
  lines.push(...failureSections(results, grading));
  return lines.join("\n") + "\n";
}

// The failures table, then what grading saw of each failed trial (the first GRADED_FAILURES).
function failureSections(results: Results, grading: boolean): string[] {
  const failures = results.trials.filter((trial) => trial.verdict === "fail");
  if (failures.length === 0) return [];
  const lines = [
    "",
    "## Failures",
    "",
    "| trial | bucket | reason | session |",
    "| --- | --- | --- | --- |",
    ...failures.map((trial) =>
      `| ${cell(trial.task)}#${trial.repeat} | ${trial.bucket} | ${
        cell(trial.reason)
      } | \`${trial.session}\` |`
    ),
  ];
  if (!grading) return lines;
  return [
    ...lines,
    "",
    "## What grading saw",
    ...failures.slice(0, GRADED_FAILURES).flatMap((trial) => ["", ...gradingMarkdown(trial)]),
    ...(failures.length > GRADED_FAILURES
      ? ["", `(${failures.length - GRADED_FAILURES} more failed trials: \`verdict show\` each)`]
      : []),
  ];
}

/** How many failed trials' grading the report shows; `verdict show` has the rest. */
const GRADED_FAILURES = 50;

function cell(text: string): string {
  return text.replaceAll("|", "\\|").replaceAll("\n", " ");
}
