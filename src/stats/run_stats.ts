/**
 * Statistics of one run, per task and overall (SPEC section 8): pass rate with a Wilson 95%
 * interval, pass@k and pass^k for every k up to the repeat count, flaky tasks, tokens, cost (unknown
 * stays unknown), steps and wall time as median and p95, and failure buckets with their reasons.
 *
 * @module
 */
import { usd, usdToNumber } from "../core/money.ts";
import type { TrialSummary } from "../store/trial_record.ts";
import { passAtK, passHatK, quantile, wilson } from "./estimators.ts";
import type { PromptCacheStats } from "./prompt_cache.ts";

/**
 * What statistics need of a trial: a stored trial summary without its repeat (a `results.json`
 * trial has all of it).
 */
export type TrialSample = Omit<TrialSummary, "repeat">;

/** Pass statistics of a group of trials. */
export interface PassStats {
  /** The task (absent on the overall group). */
  task?: string;
  /** Trials. */
  n: number;
  /** Passes. */
  passes: number;
  /** passes / n (a fraction), null when n is 0. */
  pass_rate: number | null;
  /** Wilson 95% interval, low end (a fraction). */
  ci_low: number;
  /** Wilson 95% interval, high end. */
  ci_high: number;
  /** pass@k by k. Overall: the mean over tasks. */
  pass_at_k: Record<string, number>;
  /** pass^k by k. Overall: the mean over tasks. */
  pass_hat_k: Record<string, number>;
}

/** Rewards of Harbor trials. */
export interface RewardStats {
  /** The mean reward. */
  mean: number;
  /** How many trials had a reward. */
  n: number;
}

/** A median and a 95th percentile (null when there is no sample). */
export interface Spread {
  /** The median. */
  median: number | null;
  /** The 95th percentile. */
  p95: number | null;
}

/**
 * Everything `verdict stats` reports for a run.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { runStats, type RunStats } from "./run_stats.ts";
 * const stats: RunStats = runStats([{
 *   task: "a", verdict: "pass", bucket: "pass", reason: "", steps: 2,
 *   tokens: { input: 10, output: 2 }, cost_usd: null, duration_ms: 500,
 * }]);
 * assert.equal(stats.tasks[0].pass_rate, 1);
 * assert.equal(stats.overall.cost_usd.total, null); // a trial's cost is unknown
 * ```
 */
export interface RunStats {
  /** The overall group, with resource use and failures. */
  overall: PassStats & {
    /** Tasks whose repeats both passed and failed. */
    flaky: string[];
    /** Input plus output tokens per trial. */
    tokens: Spread & { total: number };
    /** Cost per trial; everything null when any trial's cost is unknown. */
    cost_usd: Spread & { total: number | null };
    /** Steps per trial. */
    steps: Spread;
    /** Wall time per trial, ms. */
    wall_ms: Spread;
    /** Failures by bucket, each with its reasons counted. */
    buckets: Record<string, { count: number; reasons: Record<string, number> }>;
    /** Harbor tasks' rewards, when any trial had one. */
    reward?: RewardStats;
    /** The provider's prefix cache on the run's model input, when it was measured. */
    prompt_cache?: PromptCacheStats;
  };
  /** Per task, by task id (the reward when its trials had one). */
  tasks: (PassStats & { flaky: boolean; reward?: RewardStats })[];
}

/**
 * Computes a run's statistics; `promptCache`, measured from the run's record, is reported with
 * the overall group.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { runStats, type TrialSample } from "./run_stats.ts";
 * const trial = (task: string, verdict: "pass" | "fail"): TrialSample => ({
 *   task, verdict, bucket: verdict === "pass" ? "pass" : "agent_failure", reason: "", steps: 3,
 *   tokens: { input: 10, output: 2 }, cost_usd: 0.01, duration_ms: 1000,
 * });
 * const stats = runStats([trial("a", "pass"), trial("a", "fail"), trial("b", "pass"), trial("b", "pass")]);
 * assert(stats.overall.pass_rate === 0.75 && stats.overall.flaky[0] === "a");
 * ```
 */
export function runStats(
  trials: readonly TrialSample[],
  promptCache?: PromptCacheStats,
): RunStats {
  const byTask = new Map<string, TrialSample[]>();
  for (const trial of trials) {
    const list = byTask.get(trial.task);
    if (list) list.push(trial);
    else byTask.set(trial.task, [trial]);
  }
  const tasks = [...byTask.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(
    ([task, list]) => {
      const passes = countPasses(list);
      return {
        task,
        ...passStats(list.length, passes),
        flaky: passes > 0 && passes < list.length,
        ...meanReward(list),
      };
    },
  );
  const maxK = tasks.length === 0 ? 0 : Math.min(...tasks.map((task) => task.n));
  const mean = (key: "pass_at_k" | "pass_hat_k") => {
    const out: Record<string, number> = {};
    for (let k = 1; k <= maxK; k++) {
      out[k] = tasks.reduce((sum, task) => sum + task[key][k], 0) / tasks.length;
    }
    return out;
  };
  const passes = countPasses(trials);
  const [ciLow, ciHigh] = wilson(passes, trials.length);
  const costs = trials.map((trial) => trial.cost_usd);
  const knownCost = costs.every((cost): cost is number => cost !== null);
  const tokens = trials.map((trial) => trial.tokens.input + trial.tokens.output);
  const buckets: RunStats["overall"]["buckets"] = {};
  for (const trial of trials) {
    if (trial.verdict === "pass") continue;
    const bucket = (buckets[trial.bucket] ??= { count: 0, reasons: {} });
    bucket.count++;
    bucket.reasons[trial.reason] = (bucket.reasons[trial.reason] ?? 0) + 1;
  }
  return {
    overall: {
      n: trials.length,
      passes,
      pass_rate: trials.length === 0 ? null : passes / trials.length,
      ci_low: ciLow,
      ci_high: ciHigh,
      pass_at_k: mean("pass_at_k"),
      pass_hat_k: mean("pass_hat_k"),
      flaky: tasks.filter((task) => task.flaky).map((task) => task.task),
      tokens: { ...spread(tokens), total: tokens.reduce((sum, value) => sum + value, 0) },
      cost_usd: knownCost
        ? {
          ...spread(costs as number[]),
          total: usdToNumber((costs as number[]).reduce((sum, value) => sum + usd(value), 0n)),
        }
        : { median: null, p95: null, total: null },
      steps: spread(trials.map((trial) => trial.steps)),
      wall_ms: spread(trials.map((trial) => trial.duration_ms)),
      buckets,
      ...meanReward(trials),
      ...(promptCache ? { prompt_cache: promptCache } : {}),
    },
    tasks,
  };
}

/** Harbor trials' rewards: their mean, over the trials whose verifier wrote one. */
function meanReward(trials: readonly TrialSample[]): { reward?: RewardStats } {
  const rewards = trials.flatMap((trial) => trial.reward === undefined ? [] : [trial.reward]);
  if (rewards.length === 0) return {};
  return {
    reward: {
      mean: rewards.reduce((sum, value) => sum + value, 0) / rewards.length,
      n: rewards.length,
    },
  };
}

function passStats(n: number, passes: number): Omit<PassStats, "task"> {
  const [ciLow, ciHigh] = wilson(passes, n);
  const atK: Record<string, number> = {};
  const hatK: Record<string, number> = {};
  for (let k = 1; k <= n; k++) {
    atK[k] = passAtK(n, passes, k);
    hatK[k] = passHatK(n, passes, k);
  }
  return {
    n,
    passes,
    pass_rate: n === 0 ? null : passes / n,
    ci_low: ciLow,
    ci_high: ciHigh,
    pass_at_k: atK,
    pass_hat_k: hatK,
  };
}

function countPasses(trials: readonly TrialSample[]): number {
  let passes = 0;
  for (const trial of trials) if (trial.verdict === "pass") passes++;
  return passes;
}

function spread(values: readonly number[]): Spread {
  return { median: quantile(values, 0.5), p95: quantile(values, 0.95) };
}
