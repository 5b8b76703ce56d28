/**
 * Verdict as a library: run agent evaluations and read their records from your own program.
 *
 * An agent works on a task in one disposable container; the harness seals what it left, and the
 * task's script decides pass or fail. Every step is recorded in SQLite, hash-chained, in a state
 * folder (`verdict.db`, `runs/<id>/`), so a run can be resumed, replayed without a model,
 * verified for tampering, and compared with another. The `verdict` command is built on this
 * module; use it when a program (a CI gate, a dashboard, a notebook) starts runs or reads them.
 *
 * - **Tasks**: {@linkcode loadSuite} reads task folders (Verdict's or Harbor's).
 * - **Running**: {@linkcode runEval} runs one agent over the tasks, {@linkcode runSweep} several
 *   agents and models over the same tasks, one run each. An agent is a name of the registry
 *   (`loop`, `oracle`, `nop`, `claude-code`, `codex`, `cmd:COMMAND`), Verdict's loop driven by a
 *   {@linkcode Model} of your own ({@linkcode loopWithModel}), or a {@linkcode TrialAgent} of your
 *   own. Runs go on a {@linkcode Sandbox}: {@linkcode DockerSandbox}, or the engine in memory of
 *   `@verdict/verdict/testing`.
 * - **Recorded runs**, by id: {@linkcode resumeEval}, {@linkcode replayEval},
 *   {@linkcode verifyEval}, {@linkcode evalStats}, {@linkcode compareEvals} (with a gate:
 *   {@linkcode parseGate}, {@linkcode decideGate}) and {@linkcode reportEval}.
 *
 * The subpaths hold the words these take and return, each for one purpose:
 * `@verdict/verdict/agents` (writing an agent or a model backend), `/sandbox` (the container
 * engine), `/records` (what a run records), `/task-format` (task manifests) and `/testing` (the
 * engine in memory, a logical clock, the scripted model). Errors are {@linkcode VerdictError}s
 * whose `exitCode` says whose fault it was: bad input (2), the infrastructure (3), a damaged
 * record (1).
 *
 * @example Two agents on one task, compared
 * ```ts
 * import assert from "node:assert/strict";
 * import { compareEvals, runSweep } from "./mod.ts";
 * import { MemorySandbox } from "./testing.ts";
 * const home = await Deno.makeTempDir(); // the state folder
 * const { runs } = await runSweep(
 *   { paths: ["tasks/fix-slugify"], agents: ["nop", "oracle"], home },
 *   { sandbox: new MemorySandbox() }, // or new DockerSandbox(new Docker({ PATH: "/usr/bin:/bin" }))
 * );
 * const [base, candidate] = runs.map((outcome) => outcome.run.id);
 * assert(compareEvals(home, base, candidate).comparable);
 * await Deno.remove(home, { recursive: true });
 * ```
 *
 * @example An agent of your own, in Docker
 * ```ts
 * import assert from "node:assert/strict";
 * import { Docker, DockerSandbox, runEval, type TrialAgent } from "./mod.ts";
 * import { ZERO_COUNTERS } from "./agents.ts";
 * const agent: TrialAgent = {
 *   name: "touch-readme",
 *   async run({ container, timeoutMs, signal }) {
 *     const { exitCode } = await container.exec("touch README.md", { timeoutMs, signal });
 *     return {
 *       stopReason: exitCode === 0 ? "completed" : "error",
 *       counters: { ...ZERO_COUNTERS, finished: true },
 *       tokens: { input: 0, output: 0 },
 *     };
 *   },
 * };
 * const home = await Deno.makeTempDir();
 * const { results } = await runEval(
 *   { paths: ["tasks/fix-slugify"], agent: { agent }, home },
 *   { sandbox: new DockerSandbox(new Docker({ PATH: "/usr/bin:/bin" })) },
 * );
 * assert.equal(results.run.agent, "touch-readme");
 * assert.equal(results.trials[0].verdict, "fail"); // touching a file fixes no bug
 * await Deno.remove(home, { recursive: true });
 * ```
 *
 * @module
 */

// Tasks.
export { loadSuite, type Suite } from "./src/task/load_suite.ts";
export type { Task } from "./src/task/task.ts";

// Running: one agent, or a sweep; the agents a run takes.
export { type EvalRequest, runEval, type RunOptions } from "./src/eval/run/run_eval.ts";
export type { RunEngine } from "./src/eval/run/engine_seats.ts";
export { type SigningKey, signingKey } from "./src/core/ed25519.ts";
export type { EvalOutcome, Progress } from "./src/eval/run/run_lifecycle.ts";
export {
  type PassedOver,
  runSweep,
  type SweepOutcome,
  type SweepRequest,
} from "./src/eval/run/sweep.ts";
export {
  type AgentChoice,
  type LoopOptions,
  loopWithModel,
  type RunAgent,
} from "./src/eval/run/run_agents.ts";
export type { AgentOutcome, TrialAgent, TrialContext } from "./src/agent/agent.ts";
export type { Model } from "./src/model/model.ts";
export type { Clock } from "./src/core/clock.ts";
export type { Sandbox } from "./src/engine/sandbox.ts";
export { DockerSandbox } from "./src/engine/docker_sandbox.ts";
export { Docker } from "./src/engine/docker.ts";

// Recorded runs, by id.
export {
  compareEvals,
  evalStats,
  replayEval,
  type ReplayOptions,
  reportEval,
  resumeEval,
  type ResumeOptions,
  verifyEval,
  type VerifyOutcome,
} from "./src/library/recorded_runs.ts";
export type { Results } from "./src/report/results.ts";
export type { RunStats } from "./src/stats/run_stats.ts";
export type { Comparison } from "./src/stats/compare.ts";
export { decideGate, type Gate, type GateOutcome, parseGate } from "./src/stats/gate.ts";
export { renderJunit } from "./src/report/junit.ts";

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
