/**
 * What a run records and what is computed from it, as a program reads them: the run and its
 * configuration, each trial's verdict and bucket, the results, the statistics' parts, a
 * verification's and a replay's findings.
 *
 * @example A run's trials by bucket
 * ```ts
 * import assert from "node:assert/strict";
 * import { runEval } from "./mod.ts";
 * import { type Bucket, BUCKETS } from "./records.ts";
 * import { MemorySandbox } from "./testing.ts";
 * const home = await Deno.makeTempDir();
 * const { results } = await runEval(
 *   { paths: ["tasks/fix-slugify"], agent: "nop", home },
 *   { sandbox: new MemorySandbox() },
 * );
 * const buckets: Bucket[] = results.trials.map((trial) => trial.bucket);
 * assert(buckets.every((bucket) => BUCKETS.includes(bucket)));
 * await Deno.remove(home, { recursive: true });
 * ```
 *
 * @module
 */
export type { RunRecord, RunStatus } from "./src/store/run_table.ts";
export type { Experiment, RecordedRunConfig, RunConfig } from "./src/eval/setup/run_identity.ts";
export type { Shard } from "./src/eval/setup/shard.ts";
export type { AgentNeeds } from "./src/eval/setup/agent_registry.ts";
export type {
  LoopSettings,
  ProviderSettings,
  ReplaySettings,
} from "./src/eval/setup/loop_settings.ts";
export {
  type Bucket,
  BUCKETS,
  type ReportedCheck,
  type ReportedScript,
  type TrialRecord,
  type Verdict,
  VERDICTS,
} from "./src/store/trial_record.ts";
export { RESULTS_SCHEMA, type RetriedAttempt, type UnfinishedTrial } from "./src/report/results.ts";
export type { PassStats, RewardStats, Spread } from "./src/stats/run_stats.ts";
export type { PromptCacheStats } from "./src/stats/prompt_cache.ts";
export type { Flip } from "./src/stats/compare.ts";
export type { VerifyProblem, VerifyReport } from "./src/store/verify.ts";
export type { DerivedFileProblem } from "./src/report/derived_files.ts";
export type { SessionReplay } from "./src/eval/replay/replay.ts";
export type { Difference } from "./src/core/first_difference.ts";
