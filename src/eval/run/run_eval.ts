/**
 * An eval (`verdict eval`): one agent's trials = tasks × repeats, at most `concurrency` at once,
 * each in its own containers; results in the store and in `runs/<id>/results.json` and
 * `report.md`. An interrupt
 * stops new trials, kills the running ones, removes the run's containers and keeps every finished
 * trial. Every container carries the state folder's owner label (`run_owner.ts`), and every sweep
 * selects by it: another state folder's containers are never touched, even of a run with the same
 * id. The run's lifecycle is `run_lifecycle.ts`'s, shared with `resume`; this says how a new run
 * is claimed and recorded.
 *
 * @module
 */
import type { SigningKey } from "../../core/ed25519.ts";
import { join } from "node:path";
import { installedAgent } from "../../agent/cmd_agent.ts";
import type { Clock } from "../../core/clock.ts";
import { systemClock } from "../../core/system_clock.ts";
import { VERSION } from "../../core/version.ts";
import type { Sandbox } from "../../engine/sandbox.ts";
import { openStore, type Store } from "../../store/store.ts";
import { loadSuite, selectTasks, type Suite } from "../../task/load_suite.ts";
import type { Task } from "../../task/task.ts";
import { readyHarborImages, type ReadyImage } from "../setup/harbor_images.ts";
import { requireRunnableImages } from "../setup/installed_probe.ts";
import { requireSolutions } from "../setup/oracle_solutions.ts";
import { type Experiment, type RecordedRunConfig, sessionId } from "../setup/run_identity.ts";
import { type Shard, shardTasks } from "../setup/shard.ts";
import { stageTask } from "../trial/staged_task.ts";
import type { StagedTask, TrialPlan } from "../trial/trial_plan.ts";
import { type AgentChoice, type LoopOptions, planAgents, type PlannedAgent } from "./run_agents.ts";
import { claimRunId } from "./run_claim.ts";
import {
  harborTasks,
  readyEngineImages,
  removeEveryLeftover,
  requireTaskImages,
} from "./engine_images.ts";
import { engineSandboxes, type RunEngine } from "./engine_seats.ts";
import { driveRun, type EvalOutcome, type Progress, type RunDeps } from "./run_lifecycle.ts";

/**
 * An eval: tasks × repeats of one agent, recorded as one run in the state folder `home`.
 *
 * @example The oracle (each task's reference solution) on one task
 * ```ts
 * import assert from "node:assert/strict";
 * import type { EvalRequest } from "./run_eval.ts";
 * const request: EvalRequest = { paths: ["tasks/fix-slugify"], agent: "oracle", home: ".verdict" };
 * assert.equal(request.repeat ?? 1, 1);
 * ```
 */
export interface EvalRequest {
  /** Where the tasks are: task folders, or folders of task folders (recorded for `resume`). */
  paths: string[];
  /** Only these task ids (default every task at `paths`). */
  tasks?: string[];
  /**
   * The agent: a name of the registry (`loop`, `oracle`, `nop`, `claude-code`, `codex`,
   * `cmd:COMMAND`), or one of your own.
   */
  agent: AgentChoice;
  /** The model spec, for an agent a model drives (default `scripted`). */
  model?: string;
  /** How the loop agent is set up, for an agent a model drives. */
  loop?: LoopOptions;
  /** A `cmd:` agent's own program, copied into its container (`--agent-files`). */
  agentFiles?: string;
  /** Repeats per task (default 1). */
  repeat?: number;
  /** Trials at once (default 4). */
  concurrency?: number;
  /** The seed of every random choice (default 0). */
  seed?: number;
  /** The state folder: `verdict.db` and `runs/<id>/`. */
  home: string;
  /** A Harbor task's reward at or above which its trial passes (default 1). */
  passReward?: number;
  /**
   * Run only this slice of the tasks (`shard.ts`), under the id of the whole experiment; the
   * configuration records the shard and every selected task.
   */
  shard?: Shard;
}

/**
 * What a run runs on: the container engine, and optionally a clock, an abort signal and a
 * progress listener.
 *
 * @example Docker, stopped after ten minutes
 * ```ts
 * import assert from "node:assert/strict";
 * import { Docker } from "../../engine/docker.ts";
 * import { DockerSandbox } from "../../engine/docker_sandbox.ts";
 * import type { RunOptions } from "./run_eval.ts";
 * const options: RunOptions = {
 *   sandbox: new DockerSandbox(new Docker({ PATH: "/usr/bin:/bin" })),
 *   signal: AbortSignal.timeout(600_000),
 * };
 * assert(options.clock === undefined); // the system clock
 * ```
 */
export interface RunOptions {
  /** The container engine. */
  sandbox: Sandbox;
  /** The clock (default the system's). */
  clock?: Clock;
  /** Stops the run: running trials are killed, finished ones kept, the run stays resumable. */
  signal?: AbortSignal;
  /** Hears about the run as it goes. */
  progress?: Progress;
  /** Signs the run when it ends (`VERDICT_SIGNING_KEY`); unsigned without. */
  signingKey?: SigningKey;
  /** Several engines to spread the trials over (`--engine`); `sandbox` is the first of them. */
  engines?: readonly RunEngine[];
}

/**
 * Runs an eval: every agent is checked and built, then the trials run, at most `concurrency` at
 * once, each in its own containers; the results are in the store and in `runs/<id>/`
 * (`results.json`, `report.md`, `report.html`). An abort stops new trials, kills the running
 * ones, removes the run's containers and keeps every finished trial.
 *
 * @example `nop` on an engine in memory, whose task tests fail
 * ```ts
 * import assert from "node:assert/strict";
 * import { MemorySandbox } from "../../engine/memory_sandbox.ts";
 * import { runEval } from "./run_eval.ts";
 * const sandbox = new MemorySandbox({
 *   exec: ({ script }) => ({ exitCode: script.includes("tests/test.sh") ? 1 : 0 }),
 * });
 * const home = await Deno.makeTempDir();
 * const { results } = await runEval(
 *   { paths: ["tasks/fix-slugify"], agent: "nop", home },
 *   { sandbox },
 * );
 * assert.equal(results.trials[0].bucket, "agent_failure"); // tests/test.sh exited 1
 * await Deno.remove(home, { recursive: true });
 * ```
 * @throws {UsageError} when the agent is unknown or cannot be built, or the oracle agent is asked
 * to run a task with no solution (exit 2).
 * @throws {InfrastructureError} when no engine answers or an image is missing (exit 3).
 */
export async function runEval(request: EvalRequest, options: RunOptions): Promise<EvalOutcome> {
  const { agent, model, ...common } = request;
  const clock = options.clock ?? systemClock;
  const suite = await loadSuite(request.paths);
  const tasks = selectTasks(suite, request.tasks ?? []);
  const [planned] = await planAgents(
    {
      ...common,
      agents: [agent],
      models: model === undefined ? undefined : [model],
      repeat: request.repeat ?? 1,
    },
    tasks,
    { clock },
  );
  return await evalSuite(suiteRun(common, suite, tasks, planned), runDeps(options));
}

/** An eval of tasks already loaded, with its agent built. */
export interface SuiteRun {
  /** The paths the suite was loaded from (recorded, so `resume` can load it again). */
  paths: string[];
  /** The suite (for its digest). */
  suite: Suite;
  /** The selected tasks. */
  tasks: Task[];
  /** The agent, built. */
  agent: PlannedAgent;
  /** Repeats per task. */
  repeat: number;
  /** Trials at once. */
  concurrency: number;
  /** The seed. */
  seed: number;
  /** The state directory. */
  home: string;
  /** A Harbor task's reward at or above which its trial passes (default 1). */
  passReward?: number;
  /** Run only that slice of the tasks. */
  shard?: Shard;
}

/** The {@linkcode SuiteRun} of a request whose suite is loaded and whose agent is built. */
export function suiteRun(
  request: Omit<EvalRequest, "agent" | "model">,
  suite: Suite,
  tasks: Task[],
  agent: PlannedAgent,
): SuiteRun {
  return {
    paths: request.paths,
    suite,
    tasks,
    agent,
    repeat: request.repeat ?? 1,
    concurrency: request.concurrency ?? 4,
    seed: request.seed ?? 0,
    home: request.home,
    passReward: request.passReward,
    shard: request.shard,
  };
}

/** A run's dependencies, with the defaults of what {@linkcode RunOptions} leaves out. */
export function runDeps(options: RunOptions): SuiteRunDeps {
  return {
    sandbox: options.sandbox,
    clock: options.clock ?? systemClock,
    signal: options.signal ?? new AbortController().signal,
    progress: options.progress ?? { runStarted() {}, trialFinished() {} },
    ...(options.signingKey ? { signingKey: options.signingKey } : {}),
    ...(options.engines ? { engines: options.engines } : {}),
  };
}

/** What {@linkcode evalSuite} needs from its caller. */
export interface SuiteRunDeps extends Omit<RunDeps, "agent" | "passReward" | "crash" | "gateway"> {
  /** An open store to use instead of `home/verdict.db`. */
  store?: Store;
}

/**
 * Runs an eval of a loaded suite with a built agent: the images readied, the run claimed and
 * recorded, its trials driven (`run_lifecycle.ts`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { nopAgent } from "../../agent/nop.ts";
 * import { LogicalClock } from "../../core/clock.ts";
 * import { MemorySandbox } from "../../engine/memory_sandbox.ts";
 * import { loadSuite } from "../../task/load_suite.ts";
 * import { evalSuite } from "./run_eval.ts";
 * const home = await Deno.makeTempDir();
 * const suite = await loadSuite(["tasks/fix-slugify"]);
 * const agent = { agent: nopAgent, model: null, settings: null, needs: { model: false, solutions: false } };
 * const { run } = await evalSuite(
 *   { paths: ["tasks/fix-slugify"], suite, tasks: suite.tasks, agent, repeat: 1, concurrency: 1, seed: 0, home },
 *   {
 *     sandbox: new MemorySandbox(), clock: new LogicalClock(), signal: new AbortController().signal,
 *     progress: { runStarted() {}, trialFinished() {} },
 *   },
 * );
 * assert.equal(run.status, "finished");
 * await Deno.remove(home, { recursive: true });
 * ```
 * @throws {UsageError} when the oracle agent is asked to run a task with no solution (exit 2).
 * @throws {InfrastructureError} when no engine answers or an image is missing (exit 3).
 */
export async function evalSuite(request: SuiteRun, deps: SuiteRunDeps): Promise<EvalOutcome> {
  const { agent } = request;
  if (agent.needs.solutions) requireSolutions(request.tasks);
  // A shard readies, stages and runs only its slice; the experiment is still the whole selection.
  const selected = shardTasks(request.tasks, request.shard);
  const { engines, signal } = deps;
  const sidecar = installedAgent(agent.agent) !== undefined;
  if (engines !== undefined) await readyEngineImages(engines, selected, sidecar, signal);
  else await deps.sandbox.ping(signal);
  // Harbor tasks' images are built (or found) first, on the first engine (then sent to the
  // others): a missing base image stops the run before anything is recorded.
  const ready = await readyHarborImages(selected, deps.sandbox, signal);
  const tasks = ready.map(({ task }) => task);
  if (engines !== undefined) await readyEngineImages(engines, harborTasks(tasks), false, signal);
  await requireTaskImages(engineSandboxes(deps), tasks, deps.signal);

  const runsDir = join(request.home, "runs");
  await Deno.mkdir(runsDir, { recursive: true });
  const store = deps.store ?? openStore(join(request.home, "verdict.db"));
  const installed = installedAgent(agent.agent);
  const agentDigest = await installed?.digest() ?? null;
  const experiment = experimentOf(request, deps.waiveModelOnly === true, agentDigest);
  let attempt = 1;
  try {
    return await driveRun({
      home: request.home,
      store,
      claim: async (runsDir) => {
        const claimed = await claimRunId(store, experiment, runsDir);
        attempt = claimed.attempt;
        return claimed;
      },
      prepare: async ({ id, owner }) => {
        // Before anything is recorded: an image the installed agent cannot run refuses the run.
        if (installed !== undefined) {
          await requireRunnableImages(deps.sandbox, installed, tasks, {
            id,
            owner,
            copies: deps.engines !== undefined,
          }, deps.signal);
        }
        // An installed agent's own files: a resumed trial mounts them again.
        const config = recordedConfig(request, experiment, attempt, installed?.files);
        await keepBuildLogs(join(runsDir, id), ready);
        const staged = await Promise.all(
          tasks.map((task) => stageTask(task, agent.settings?.policy)),
        );
        return {
          plans: recordRun(store, { id, config, clock: deps.clock }, staged, request.repeat),
          pool: { seed: request.seed, concurrency: request.concurrency },
          deps: {
            agent: agent.agent,
            passReward: request.passReward,
            waiveModelOnly: deps.waiveModelOnly,
            crash: agent.crash,
            gateway: agent.gateway,
            follow: agent.follow,
          },
          cleanedUp: await removeEveryLeftover(engineSandboxes(deps), runsDir, owner),
        };
      },
    }, deps);
  } finally {
    if (deps.store === undefined) store.close();
  }
}

/** What the run is an experiment of: what its id is derived from. */
function experimentOf(
  request: SuiteRun,
  waiveModelOnly: boolean,
  agentDigest: string | null,
): Experiment {
  return {
    suite_digest: request.suite.digest,
    tasks: request.tasks.map((task) => task.id),
    repeat: request.repeat,
    agent: request.agent.agent.name,
    model: request.agent.model,
    settings: request.agent.settings,
    seed: request.seed,
    harness_version: VERSION,
    // The pass mark decides verdicts: another one is another experiment.
    ...(request.passReward === undefined ? {} : { pass_reward: request.passReward }),
    // Grading waives model-only requirements (tasks check): `resume` must grade the same way.
    ...(waiveModelOnly ? { waive_model_only: true } : {}),
    // What an installed agent runs: other files under the same command are another experiment.
    ...(agentDigest === null ? {} : { agent_digest: agentDigest }),
  };
}

/** The run's configuration: its experiment, and how it was run. */
function recordedConfig(
  request: SuiteRun,
  experiment: Experiment,
  attempt: number,
  agentFiles: string | null | undefined,
): RecordedRunConfig {
  return {
    ...experiment,
    attempt,
    concurrency: request.concurrency,
    paths: request.paths,
    // Every selected task's, a shard's too: the merged run records what the unsharded one does.
    task_dirs: Object.fromEntries(request.tasks.map((task) => [task.id, task.dir])),
    categories: Object.fromEntries(
      request.tasks.map((task) => [task.id, task.manifest.category]),
    ),
    agent_needs: request.agent.needs,
    ...(agentFiles ? { agent_files: agentFiles } : {}),
    ...(request.shard ? { shard: request.shard } : {}),
  };
}

/** Records the run and a session per staged task and repeat, in one transaction: its plans. */
function recordRun(
  store: Store,
  run: { id: string; config: RecordedRunConfig; clock: Clock },
  staged: readonly StagedTask[],
  repeats: number,
): TrialPlan[] {
  const { id } = run;
  return store.transaction(() => {
    store.runs.create({ id, config: run.config, createdAt: run.clock.now() });
    return staged.flatMap((stagedTask) =>
      Array.from({ length: repeats }, (_, repeat) => {
        const session = sessionId(id, stagedTask.task.id, repeat);
        store.runs.createSession({ id: session, run: id, task: stagedTask.task.id, repeat });
        return { run: id, session, staged: stagedTask, repeat };
      })
    );
  });
}

/** Each built environment image's log, kept with the run (`runs/<id>/builds/<task>.log`). */
async function keepBuildLogs(runDir: string, ready: readonly ReadyImage[]): Promise<void> {
  const built = ready.filter((image) => image.buildLog !== null);
  if (built.length === 0) return;
  await Deno.mkdir(join(runDir, "builds"), { recursive: true });
  for (const { task, buildLog } of built) {
    await Deno.writeTextFile(join(runDir, "builds", `${task.id}.log`), buildLog!);
  }
}
