/**
 * `report.md`: a run's summary, per-task pass rates and every failure with its reason, as plain
 * Markdown tables that render in any CI viewer.
 *
 * @module
 */
import type { Results, TrialRecord } from "./results.ts";

/**
 * Renders a run's results as Markdown.
 *
 * @example
 * ```ts
 * import { renderMarkdown } from "./markdown.ts";
 * const text = renderMarkdown({
 *   schema: "verdict.results/1",
 *   run: { id: "abc", status: "finished", created_at: "2026-01-01T00:00:00.000Z" },
 *   summary: { trials: 0, finished: 0, passed: 0, failed: 0, pass_rate: null, buckets: {} },
 *   trials: [],
 * });
 * console.assert(text.startsWith("# Verdict run abc"));
 * ```
 */
export function renderMarkdown(results: Results): string {
  const { run, summary } = results;
  const lines = [
    `# Verdict run ${run.id}`,
    "",
    "| | |",
    "| --- | --- |",
    ...[
      "status",
      "agent",
      "model",
      "seed",
      "repeat",
      "suite_digest",
      "harness_version",
      "created_at",
    ]
      .filter((key) => run[key] !== undefined)
      .map((key) => `| ${key.replace("_", " ")} | ${cell(String(run[key]))} |`),
    "",
    "## Summary",
    "",
    `${summary.finished} of ${summary.trials} trials finished: **${summary.passed} passed**, ` +
    `${summary.failed} failed` +
    (summary.pass_rate === null ? "." : `, pass rate ${percent(summary.pass_rate)}.`),
    "",
    "| bucket | trials |",
    "| --- | ---: |",
    ...Object.entries(summary.buckets).map(([bucket, count]) => `| ${bucket} | ${count} |`),
    "",
    "## Tasks",
    "",
    "| task | passed | trials | pass rate |",
    "| --- | ---: | ---: | ---: |",
    ...perTask(results.trials).map(([task, passed, total]) =>
      `| ${cell(task)} | ${passed} | ${total} | ${percent(passed / total)} |`
    ),
  ];
  const failures = results.trials.filter((trial) => trial.verdict === "fail");
  if (failures.length > 0) {
    lines.push(
      "",
      "## Failures",
      "",
      "| trial | bucket | reason | session |",
      "| --- | --- | --- | --- |",
      ...failures.map((trial) =>
        `| ${cell(trial.task)}#${trial.repeat} | ${trial.bucket} | ${cell(trial.reason)} | ` +
        `\`${trial.session}\` |`
      ),
    );
  }
  return lines.join("\n") + "\n";
}

function perTask(trials: readonly TrialRecord[]): [string, number, number][] {
  const byTask = new Map<string, [number, number]>();
  for (const trial of trials) {
    const [passed, total] = byTask.get(trial.task) ?? [0, 0];
    byTask.set(trial.task, [passed + (trial.verdict === "pass" ? 1 : 0), total + 1]);
  }
  return [...byTask].map(([task, [passed, total]]) => [task, passed, total]);
}

function percent(fraction: number): string {
  return `${(fraction * 100).toFixed(1)}%`;
}

function cell(text: string): string {
  return text.replaceAll("|", "\\|").replaceAll("\n", " ");
}
