/**
 * Verdict as a library: run agent evaluations and read their results from your own program.
 *
 * An agent works on a task in one disposable container; the harness seals what it left, and the
 * task's script decides pass or fail. Every step is recorded in SQLite, hash-chained, so a run can
 * be resumed, replayed without a model, verified for tampering, and compared with another run.
 * The `verdict` command (`cli.ts`) is built on this module; use the library when a program (a CI
 * gate, a dashboard, a notebook) needs to start runs or read them.
 *
 * What it offers, in the order a run goes:
 * - **Tasks**: {@linkcode loadSuite}, {@linkcode loadTask} and {@linkcode parseManifest} read task
 *   folders; {@linkcode loadHarborTask} reads a Harbor (Terminal-Bench) one, and
 *   {@linkcode loadTaskFolder} either kind.
 * - **Agents and models**: the agents a run names (`loop`, `oracle`, `nop`):
 *   {@linkcode setupLoopAgent} builds the loop agent from a model spec (`openai:gpt-4o`,
 *   `anthropic:…`, `scripted`), {@linkcode oracleAgent} applies a task's reference solution,
 *   {@linkcode nopAgent} does nothing; {@linkcode Agent} and {@linkcode Model} are the interfaces
 *   they implement.
 * - **Running**: {@linkcode runEval} runs a suite in a {@linkcode Sandbox} (the Docker one is
 *   {@linkcode DockerSandbox}), {@linkcode resumeRun} finishes an interrupted run,
 *   {@linkcode replayRun} re-drives a recorded run against the record, {@linkcode checkTasks}
 *   proves that each task can be passed and failed.
 * - **The record**: {@linkcode openStore} opens a state folder's database; {@linkcode verifyRun}
 *   checks its hash chains; {@linkcode buildResults} and {@linkcode readTrajectory} read a run's
 *   results and each session's steps.
 * - **Statistics and reports**: {@linkcode runStats}, {@linkcode compareRuns},
 *   {@linkcode decideGate}, the estimators ({@linkcode passAtK}, {@linkcode wilson}, ...), and
 *   {@linkcode renderHtml}, {@linkcode renderMarkdown}, {@linkcode writeRunReports}.
 *
 * Errors are {@linkcode VerdictError}s whose `exitCode` says whose fault it was: bad input (2),
 * the infrastructure (3), a damaged record (1).
 *
 * @example Run a task in Docker and read the outcome
 * ```ts
 * import assert from "node:assert/strict";
 * import { Docker, DockerSandbox, loadSuite, oracleAgent, runEval, systemClock } from "./mod.ts";
 *
 * const home = await Deno.makeTempDir(); // the state folder: verdict.db and runs/<id>/
 * const suite = await loadSuite(["tasks/fix-slugify"]);
 * const outcome = await runEval(
 *   {
 *     paths: ["tasks/fix-slugify"],
 *     suite,
 *     tasks: suite.tasks,
 *     agent: "oracle", // applies the task's reference solution: every trial should pass
 *     model: null,
 *     settings: null,
 *     repeat: 1,
 *     concurrency: 1,
 *     seed: 0,
 *     home,
 *   },
 *   {
 *     sandbox: new DockerSandbox(new Docker({ PATH: "/usr/bin:/bin" })),
 *     agent: oracleAgent,
 *     clock: systemClock,
 *     signal: AbortSignal.timeout(120_000),
 *     progress: { runStarted() {}, trialFinished() {} },
 *   },
 * );
 * assert.equal(outcome.results.summary.passed, 1);
 * assert.equal(outcome.results.trials[0].bucket, "pass");
 * await Deno.remove(home, { recursive: true });
 * ```
 *
 * @example Read a recorded run: verify it, then its results and statistics
 * ```ts
 * import assert from "node:assert/strict";
 * import { buildResults, openStore, renderMarkdown, runStats, verifyRun } from "./mod.ts";
 *
 * // A program opens `<state folder>/verdict.db`; this example records a tiny run in memory.
 * const store = openStore(":memory:");
 * store.runs.create({ id: "r1", config: { seed: 1 }, createdAt: 0 });
 * store.runs.createSession({ id: "s1", run: "r1", task: "fix-slugify", repeat: 0 });
 * store.events.append("s1", [{ kind: "note", payload: { text: "hello" } }]);
 *
 * const run = store.runs.get("r1")!;
 * assert.deepEqual(verifyRun(store, run.id).problems, []);
 * const results = buildResults(store, run);
 * assert.equal(results.summary.trials, 1);
 * assert.equal(results.summary.finished, 0); // the session has no verdict yet
 * assert.match(renderMarkdown(results, runStats(results.trials)), /r1/);
 * store.close();
 * ```
 *
 * @module
 */

// Errors and the version.
export {
  CorruptionError,
  ExitCode,
  type ExitCodeValue,
  InfrastructureError,
  InputError,
  type InputProblem,
  UsageError,
  VerdictError,
} from "./src/core/errors.ts";
export { VERSION } from "./src/core/version.ts";

// Time and randomness, injected (runs take a clock; the scripted model takes a seeded generator).
export { type Clock, LogicalClock, type LogicalClockOptions } from "./src/core/clock.ts";
export { systemClock } from "./src/core/system_clock.ts";
export { type Rng, SplitMix64 } from "./src/core/rng.ts";
export type { Sha256Hex } from "./src/core/hash.ts";

// Tasks.
export { loadTask, parseManifest } from "./src/task/load_task.ts";
export type { CheckArgs, CheckKind, CheckSpec, Manifest, Requires } from "./src/task/manifest.ts";
export { loadSuite, loadTaskFolder, type Suite } from "./src/task/load_suite.ts";
export {
  type HarborConfigSettings,
  loadHarborTask,
  parseHarborToml,
} from "./src/task/harbor_task.ts";
export type { HarborSettings, Task } from "./src/task/task.ts";

// Agents, models, tools and policies.
export type { Agent, AgentContext, AgentOutcome, StopReason } from "./src/agent/agent.ts";
export {
  loopAgent,
  type LoopAgentOptions,
  type PendingCall,
  type RecordedResult,
} from "./src/agent/loop_agent.ts";
export { oracleAgent } from "./src/agent/oracle.ts";
export { nopAgent } from "./src/agent/nop.ts";
export type {
  CallOptions,
  Message,
  Model,
  ModelRequest,
  ModelResponse,
  RequestParameters,
  ToolCall,
  ToolSchema,
  Usage,
} from "./src/model/model.ts";
export type { ProviderOptions, ReasoningEffort } from "./src/model/provider_options.ts";
export { openAiModel, type OpenAiOptions } from "./src/model/openai.ts";
export { anthropicModel, type AnthropicOptions } from "./src/model/anthropic.ts";
export type { HttpDeps, RetryPolicy } from "./src/model/_http.ts";
export {
  type Fault,
  FAULTS,
  scriptedModel,
  type ScriptedModelOptions,
} from "./src/model/scripted.ts";
export { CRASH_POINTS, type CrashPoint } from "./src/model/model_spec.ts";
export { heuristicCounter, type TokenCounter } from "./src/model/tokens.ts";
export { parsePrices, type Price } from "./src/model/prices.ts";
export type { Usd } from "./src/core/money.ts";
export { decide, type Policy, type PolicyDecision, type PolicyRule } from "./src/policy/policy.ts";
export { DEFAULT_POLICY } from "./src/policy/default_policy.ts";
export { loadPolicy, parsePolicy } from "./src/policy/policy_file.ts";
export { BUILTIN_TOOLS } from "./src/tools/builtin_tools.ts";
export type {
  AnyTool,
  ArgsIssue,
  ArgsParseResult,
  ArgsSchema,
  Tool,
  ToolContext,
  ToolResult,
} from "./src/tools/tool.ts";
export type { RunCounters } from "./src/store/run_counters.ts";

// The container engine: a Sandbox, which DockerSandbox implements with the docker CLI.
export {
  AGENT_USER,
  type BindMount,
  type ContainerSpec,
  type DerivedImageOptions,
  type DerivedImageSource,
  type ExecOptions,
  type ExecResult,
  type FilesystemChange,
  type ImageBuild,
  type ImageBuildResult,
  type ImageConfig,
  type LabelledContainer,
  type ResourceLimits,
  type Sandbox,
  type SandboxContainer,
  type UnpackedExecResult,
} from "./src/engine/sandbox.ts";
export { DockerSandbox } from "./src/engine/docker_sandbox.ts";
export type { TarEntry, TarEntryHeader } from "./src/engine/tar.ts";
export { Docker, type DockerCallOptions, type DockerResult } from "./src/engine/docker.ts";

// Running.
export { type EvalDeps, type EvalRequest, runEval } from "./src/eval/run/run_eval.ts";
export type { EvalOutcome, Progress, RunDeps } from "./src/eval/run/run_lifecycle.ts";
export type {
  LoopSettings,
  ProviderSettings,
  ReplaySettings,
} from "./src/eval/setup/loop_settings.ts";
export type { AgentNeeds } from "./src/eval/setup/agent_registry.ts";
export type { CrashHook, TrialPlan } from "./src/eval/trial/trial_plan.ts";
export type { StagedTask } from "./src/eval/trial/trial_plan.ts";
export { type ResumeChoices, type ResumeDeps, resumeRun } from "./src/eval/run/resume.ts";
export type { Difference } from "./src/core/first_difference.ts";
export { type ReplayDeps, replayRun, type SessionReplay } from "./src/eval/replay/replay.ts";
export type { LoopChoices, LoopSetup } from "./src/eval/setup/loop_choices.ts";
export { setupLoopAgent } from "./src/eval/setup/loop_setup.ts";
export type { SessionDriver } from "./src/eval/trial/session_driver.ts";
export type { Experiment, RecordedRunConfig, RunConfig } from "./src/eval/setup/run_identity.ts";
export type { Shard } from "./src/eval/setup/shard.ts";
export {
  type CheckDeps,
  type CheckProgress,
  checkTasks,
  type ControlTrial,
  type TaskCheck,
  type TasksCheckOutcome,
} from "./src/eval/run/tasks_check.ts";

// The record.
export { openStore, type Store } from "./src/store/store.ts";
export type { BlobStore } from "./src/store/blob_store.ts";
export {
  all,
  type CatalogueEvent,
  EVENT,
  event,
  EVENT_FAMILIES,
  type EventConstant,
  type EventKind,
  type EventPayload,
  type EventSchema,
  first,
  has,
  last,
  type ReadEvent,
  readEvent,
} from "./src/store/event_catalogue.ts";
export { STOP_REASONS } from "./src/store/events/agent_events.ts";
export type { EventLog, EventRow, NewEvent, Payload, StoredEvent } from "./src/store/event_log.ts";
export type {
  RunRecord,
  RunStatus,
  RunTable,
  SessionRecord,
  SessionStatus,
  TrialVerdict,
} from "./src/store/run_table.ts";
export {
  type Bucket,
  BUCKETS,
  type ReportedCheck,
  type ReportedScript,
  type TrialRecord,
  type TrialSummary,
  type Verdict,
  VERDICTS,
} from "./src/store/trial_record.ts";
export {
  type BlobReferences,
  describeProblem,
  type VerifyProblem,
  type VerifyReport,
  verifyRun,
} from "./src/store/verify.ts";

// Results, statistics and reports.
export {
  buildResults,
  type Results,
  RESULTS_SCHEMA,
  type UnfinishedTrial,
} from "./src/report/results.ts";
export { renderJunit } from "./src/report/junit.ts";
export {
  readTrajectory,
  type Trajectory,
  type TrajectoryCall,
  type TrajectoryChange,
  type TrajectoryStep,
} from "./src/report/trajectory.ts";
export { mcnemarExact, passAtK, passHatK, wilson } from "./src/stats/estimators.ts";
export {
  type PassStats,
  type RewardStats,
  type RunStats,
  runStats,
  type Spread,
  type TrialSample,
} from "./src/stats/run_stats.ts";
export type { PromptCacheStats } from "./src/stats/prompt_cache.ts";
export { type ComparedRun, compareRuns, type Comparison, type Flip } from "./src/stats/compare.ts";
export { decideGate, type Gate, type GateOutcome, parseGate } from "./src/stats/gate.ts";
export { renderComparisonHtml, renderHtml } from "./src/report/html.ts";
export { renderMarkdown } from "./src/report/markdown.ts";
export { writeRunReports } from "./src/report/run_reports.ts";

// The model gateway: what answers an installed agent's model calls in each trial.
export type {
  GatewayTrial,
  TrialGateway,
  TrialGatewayFactory,
} from "./src/eval/trial/trial_plan.ts";
export { GatewayLedger, type LedgerStop, type LedgerTotals } from "./src/gateway/ledger.ts";
export type { GatewayHandler } from "./src/gateway/serve_gateway.ts";
export type {
  GatewayAnswer,
  GatewayBackend,
  GatewayCall,
  WireFormat,
} from "./src/gateway/gateway.ts";

// Installed agents' kits: Claude Code's and Codex CLI's native binaries, under the state folder.
export {
  KIT_RECIPES,
  type KitCompanion,
  type KitRecipe,
  kitRecipe,
  parseKitName,
} from "./src/kit/kit_catalogue.ts";
export {
  findKit,
  type Kit,
  type KitCompanionFile,
  type KitPackage,
  kitsFolder,
  listKits,
} from "./src/kit/kit_store.ts";
export { fetchKit, type FetchKitOptions } from "./src/kit/fetch_kit.ts";
export { importKit } from "./src/kit/import_kit.ts";

// Workspaces as a staged trial holds them.
export type {
  SealedTree,
  Snapshot,
  SnapshotChange,
  SnapshotEntry,
} from "./src/workspace/snapshot.ts";
export type { TreeEntry } from "./src/task/file_tree.ts";
