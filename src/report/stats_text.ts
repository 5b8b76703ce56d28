/**
 * Statistics and comparisons as plain text for a terminal.
 *
 * @module
 */
import { formatUsd, usd } from "../core/money.ts";
import type { Comparison } from "../stats/compare.ts";
import type { GateOutcome } from "../stats/gate.ts";
import type { PromptCacheStats } from "../stats/prompt_cache.ts";
import type { RewardStats, RunStats } from "../stats/run_stats.ts";
import type { RunStatus } from "../store/run_table.ts";

/**
 * A fraction as a percentage with one decimal.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { percent } from "./stats_text.ts";
 * assert(percent(0.5) === "50.0%" && percent(null) === "-");
 * ```
 */
export function percent(fraction: number | null | undefined): string {
  return fraction === null || fraction === undefined ? "-" : `${(fraction * 100).toFixed(1)}%`;
}

/**
 * An amount of dollars from `results.json` with six decimals, rounded in decimal, not binary;
 * `unknown` when the cost is unknown.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { dollars } from "./stats_text.ts";
 * assert(dollars(0.0000005) === "$0.000001" && dollars(null) === "unknown");
 * ```
 */
export function dollars(amount: number | null): string {
  return amount === null ? "unknown" : `$${formatUsd(usd(amount), 6)}`;
}

/** A rate with its interval: `66.7% [20.8%, 93.9%]`. */
function rateWithInterval(
  group: { pass_rate: number | null; ci_low: number; ci_high: number },
): string {
  return `${percent(group.pass_rate)} [${percent(group.ci_low)}, ${percent(group.ci_high)}]`;
}

/** How far a run has got: its status and the trials with no verdict yet. */
export interface RunProgress {
  /** The run's status. */
  status: RunStatus;
  /** Trials with no verdict yet. */
  pending: number;
}

/**
 * Text for one run's statistics; with `progress`, a run that is not done says how many trials are
 * still pending rather than passing off its finished trials as the whole run.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { statsText } from "./stats_text.ts";
 * import { runStats } from "../stats/run_stats.ts";
 * const text = statsText("r1", runStats([]), { status: "interrupted", pending: 2 });
 * assert(text.startsWith("run r1: no trial has finished yet; 2 pending"));
 * ```
 */
export function statsText(
  run: string,
  stats: RunStats,
  progress?: RunProgress,
  label?: string,
): string {
  const { overall } = stats;
  const ks = Object.keys(overall.pass_at_k);
  const lines = [
    headline(run, stats, progress, label),
    `  ${ks.map((k) => `pass@${k} ${percent(overall.pass_at_k[k])}`).join("  ")}   ` +
    ks.map((k) => `pass^${k} ${percent(overall.pass_hat_k[k])}`).join("  "),
    `  tokens median ${overall.tokens.median ?? "-"}, p95 ${
      overall.tokens.p95 ?? "-"
    } (total ${overall.tokens.total}); ` +
    `cost median ${dollars(overall.cost_usd.median)}, p95 ${dollars(overall.cost_usd.p95)} (total ${
      dollars(overall.cost_usd.total)
    })`,
    `  steps median ${overall.steps.median ?? "-"}, p95 ${
      overall.steps.p95 ?? "-"
    }; wall time median ` +
    `${seconds(overall.wall_ms.median)}, p95 ${seconds(overall.wall_ms.p95)}`,
    ...(usedPromptCache(overall.prompt_cache)
      ? [`  prompt cache: ${promptCacheText(overall.prompt_cache)}`]
      : []),
    `  flaky: ${overall.flaky.length > 0 ? overall.flaky.join(", ") : "none"}`,
    ...(overall.reward ? [`  reward: ${rewardText(overall.reward)}`] : []),
  ];
  for (const [bucket, { count, reasons }] of Object.entries(overall.buckets)) {
    const top = Object.entries(reasons).sort((a, b) => b[1] - a[1]).map(([reason, n]) =>
      `${n}× ${reason}`
    );
    lines.push(`  ${bucket}: ${count} (${top.join("; ")})`);
  }
  const header = [
    "task",
    "n",
    "passes",
    "rate [95% CI]",
    ...ks.map((k) => `pass@${k}`),
    ...ks.map((k) => `pass^${k}`),
    "flaky",
    ...(overall.reward ? ["reward"] : []),
  ];
  const rows = stats.tasks.map((task) => [
    task.task!,
    String(task.n),
    String(task.passes),
    rateWithInterval(task),
    ...ks.map((k) => percent(task.pass_at_k[k])),
    ...ks.map((k) => percent(task.pass_hat_k[k])),
    task.flaky ? "yes" : "",
    ...(overall.reward ? [task.reward ? rewardText(task.reward) : "-"] : []),
  ]);
  return `${lines.join("\n")}\n\n${columns([header, ...rows])}`;
}

// A model that never touched a prefix cache (the scripted one, most local servers) gets no line.
function usedPromptCache(cache: PromptCacheStats | undefined): cache is PromptCacheStats {
  return cache !== undefined && cache.cache_read_tokens + cache.cache_write_tokens > 0;
}

/**
 * The provider's prefix cache on a run's model input, in words: the hit rate, the tokens and the
 * dollars it saved; `n/a` for a run with no model input.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { promptCacheText } from "./stats_text.ts";
 * const cache = {
 *   input_tokens: 4000, cache_read_tokens: 3000, cache_write_tokens: 500, hit_rate: 0.75,
 *   tokens_saved: 3000, saved_usd: 0.0081,
 * };
 * assert.equal(
 *   promptCacheText(cache),
 *   "hit rate 75.0% (3000 of 4000 input tokens read from the cache, 500 written); 3000 tokens saved, $0.008100 saved",
 * );
 * ```
 */
export function promptCacheText(cache: PromptCacheStats): string {
  if (cache.hit_rate === null) return "n/a (no model input)";
  const money = cache.saved_usd === null
    ? "money saved unknown (the run's prices file is not at hand)"
    : cache.saved_usd < 0
    ? `${dollars(-cache.saved_usd)} more than without it (cache writes not read back)`
    : `${dollars(cache.saved_usd)} saved`;
  return `hit rate ${
    percent(cache.hit_rate)
  } (${cache.cache_read_tokens} of ${cache.input_tokens} ` +
    `input tokens read from the cache, ${cache.cache_write_tokens} written); ` +
    `${cache.tokens_saved} tokens saved, ${money}`;
}

// A Harbor task's mean reward over the trials whose verifier wrote one.
function rewardText(reward: RewardStats): string {
  return `mean ${Number(reward.mean.toFixed(4))} over ${reward.n}`;
}

/** Text for several runs: a column per run. */
export function statsColumnsText(
  runs: { run: string; stats: RunStats; label?: string }[],
): string {
  const tasks = [...new Set(runs.flatMap(({ stats }) => stats.tasks.map((task) => task.task!)))]
    .sort();
  const header = ["task", ...runs.map(({ run }) => run)];
  const labels = runs.some(({ label }) => label !== undefined)
    ? [["", ...runs.map(({ label }) => label ?? "")]]
    : [];
  const rows = tasks.map((task) => [
    task,
    ...runs.map(({ stats }) => {
      const found = stats.tasks.find((candidate) => candidate.task === task);
      return found ? rateWithInterval(found) : "-";
    }),
  ]);
  rows.push(["overall", ...runs.map(({ stats }) => rateWithInterval(stats.overall))]);
  return columns([header, ...labels, ...rows]);
}

/** Text for a comparison and, when given, its gate. */
export function comparisonText(
  comparison: Comparison,
  gate?: GateOutcome,
  labels?: { base: string; candidate: string },
): string {
  const [base, candidate] = labels === undefined
    ? [comparison.base, comparison.candidate]
    : [`${comparison.base} (${labels.base})`, `${comparison.candidate} (${labels.candidate})`];
  const lines: string[] = [];
  if (!comparison.comparable) {
    lines.push(`runs ${base} and ${candidate} are incomparable:`);
    lines.push(...comparison.differences.map((difference) => `  - ${difference}`));
  } else {
    lines.push(
      `${base} → ${candidate}: ${comparison.pairs} paired trials, pass rate ` +
        `${percent(comparison.base_pass_rate)} → ${percent(comparison.candidate_pass_rate)} ` +
        `(${
          comparison.delta_pp === null
            ? "-"
            : `${comparison.delta_pp >= 0 ? "+" : ""}${comparison.delta_pp.toFixed(1)} points`
        })`,
      `b (pass→fail) ${comparison.b}, c (fail→pass) ${comparison.c}, exact McNemar p = ${
        comparison.p_value.toPrecision(4)
      }`,
    );
    for (const flip of comparison.flips) {
      lines.push(
        `  ${flip.direction} ${flip.task}#${flip.repeat}  ${flip.base_session} → ${flip.candidate_session}`,
      );
    }
  }
  if (gate) {
    lines.push(gate.passed ? "gate: passed" : "gate: FAILED");
    lines.push(...gate.reasons.map((reason) => `  - ${reason}`));
  }
  return lines.join("\n") + "\n";
}

function headline(
  run: string,
  { overall }: RunStats,
  progress?: RunProgress,
  label?: string,
): string {
  const pending = progress?.pending ?? 0;
  const name = label === undefined ? run : `${run} (${label})`;
  if (pending === 0) {
    return `run ${name}: ${overall.passes} of ${overall.n} passed, ${rateWithInterval(overall)}`;
  }
  const why = progress?.status === "interrupted"
    ? `the run was interrupted ('verdict resume ${run}' finishes it)`
    : progress?.status === "running"
    ? `the run is still going, or was killed ('verdict resume ${run}' finishes a killed run)`
    : "they have no verdict";
  return overall.n === 0
    ? `run ${name}: no trial has finished yet; ${pending} pending: ${why}`
    : `run ${name}: ${overall.passes} of ${overall.n} finished trials passed, ` +
      `${rateWithInterval(overall)}; ${pending} more pending: ${why}`;
}

function seconds(ms: number | null): string {
  return ms === null ? "-" : `${(ms / 1000).toFixed(1)}s`;
}

function columns(rows: readonly (readonly string[])[]): string {
  const widths = rows[0].map((_, column) =>
    Math.max(...rows.map((row) => (row[column] ?? "").length))
  );
  return rows.map((row) =>
    row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column])))
      .join("  ").trimEnd()
  ).join("\n") + "\n";
}
