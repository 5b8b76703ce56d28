/**
 * Verdict: evaluate AI agents the way a test suite evaluates code. An agent works on a task in
 * one disposable Docker container; the harness seals what it left, and a script's exit code
 * decides pass or fail. Every step is recorded in SQLite, hash-chained, so a run can be resumed,
 * replayed without a model, verified for tampering, and compared with another run.
 *
 * This module is the library surface; `cli.ts` is the `verdict` command built on it.
 *
 * @example Record a session and verify it
 * ```ts
 * import assert from "node:assert/strict";
 * import { openStore, verifyRun } from "./mod.ts";
 * const store = openStore(":memory:");
 * store.runs.create({ id: "r1", config: { seed: 1 }, createdAt: 0 });
 * store.runs.createSession({ id: "s1", run: "r1", task: "fix-slugify", repeat: 0 });
 * store.events.append("s1", [{ kind: "note", payload: { text: "hello" } }]);
 * assert(verifyRun(store, "r1").problems.length === 0);
 * store.close();
 * ```
 *
 * @module
 */
export { canonicalBytes, canonicalJson, type Json } from "./src/core/canonical_json.ts";
export {
  hashCanonical,
  isSha256Hex,
  Sha256,
  sha256Bytes,
  type Sha256Hex,
  sha256Hex,
} from "./src/core/hash.ts";
export { deriveId } from "./src/core/ids.ts";
export { deriveSeed, type Rng, SplitMix64 } from "./src/core/rng.ts";
export {
  type Clock,
  ClockDivergence,
  type ClockReading,
  LogicalClock,
  RecordedClock,
  recordingClock,
} from "./src/core/clock.ts";
export { systemClock } from "./src/core/system_clock.ts";
export {
  CorruptionError,
  ExitCode,
  InfrastructureError,
  InputError,
  type InputProblem,
  UsageError,
  VerdictError,
} from "./src/core/errors.ts";
export { VERSION } from "./src/core/version.ts";
export { openStore, type Store } from "./src/store/store.ts";
export {
  BLOB_THRESHOLD_BYTES,
  eventHash,
  genesisHash,
  type NewEvent,
  type StoredEvent,
} from "./src/store/event_log.ts";
export {
  describeProblem,
  type VerifyProblem,
  type VerifyReport,
  verifyRun,
} from "./src/store/verify.ts";
export { runCli } from "./src/cli/main.ts";
export { denoIo, type Io, memoryIo } from "./src/cli/io.ts";
export { loadTask, parseManifest } from "./src/task/load_task.ts";
export { loadSuite, type Suite } from "./src/task/load_suite.ts";
export type { Task } from "./src/task/task.ts";
export {
  type Agent,
  type AgentContext,
  type AgentOutcome,
  type StopReason,
} from "./src/agent/agent.ts";
export { loopAgent, type LoopAgentOptions } from "./src/agent/loop_agent.ts";
export { oracleAgent } from "./src/agent/oracle.ts";
export { nopAgent } from "./src/agent/nop.ts";
export type {
  Message,
  Model,
  ModelRequest,
  ModelResponse,
  ToolCall,
  ToolSchema,
  Usage,
} from "./src/model/model.ts";
export { openAiModel } from "./src/model/openai.ts";
export { anthropicModel } from "./src/model/anthropic.ts";
export { scriptedModel } from "./src/model/scripted.ts";
export { heuristicCounter, type TokenCounter } from "./src/model/tokens.ts";
export { parsePrices, type Price } from "./src/model/prices.ts";
export { decide, type Policy, type PolicyDecision, type PolicyRule } from "./src/policy/policy.ts";
export { DEFAULT_POLICY } from "./src/policy/default_policy.ts";
export { loadPolicy, parsePolicy } from "./src/policy/policy_file.ts";
export { BUILTIN_TOOLS } from "./src/tools/builtin_tools.ts";
export { Docker } from "./src/sandbox/docker.ts";
export { type EvalOutcome, type EvalRequest, runEval } from "./src/eval/run_eval.ts";
export { checkTasks } from "./src/eval/tasks_check.ts";
export { buildResults, type Results, type TrialRecord } from "./src/report/results.ts";
export { resumeRun } from "./src/eval/resume.ts";
export { replayRun, type SessionReplay } from "./src/eval/replay.ts";
export { fingerprint, RequestFingerprinter } from "./src/model/fingerprint.ts";
export { mcnemarExact, passAtK, passHatK, quantile, wilson } from "./src/stats/estimators.ts";
export { type RunStats, runStats, type TrialSample } from "./src/stats/run_stats.ts";
export { compareRuns, type Comparison, type Flip } from "./src/stats/compare.ts";
export { decideGate, type Gate, type GateOutcome, parseGate } from "./src/stats/gate.ts";
export { renderComparisonHtml, renderHtml } from "./src/report/html.ts";
export { readTrajectory, type Trajectory } from "./src/report/trajectory.ts";
export { writeRunReports } from "./src/report/run_reports.ts";
