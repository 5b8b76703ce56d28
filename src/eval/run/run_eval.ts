/**
 * `verdict eval`: trials = tasks × repeats, at most `concurrency` at once, each in its own
 * containers; results in the store and in `runs/<id>/results.json` and `report.md`. An interrupt
 * stops new trials, kills the running ones, removes the run's containers and keeps every finished
 * trial. Every container carries the state folder's owner label (`run_owner.ts`), and every sweep
 * selects by it: another state folder's containers are never touched, even of a run with the same
 * id. The run's lifecycle is `run_lifecycle.ts`'s, shared with `resume`; this says how a new run
 * is claimed and recorded.
 *
 * @module
 */
import { installedAgent } from "../../agent/cmd_agent.ts";
import { requireRunnableImages } from "../setup/installed_probe.ts";
import { join } from "node:path";
import { InfrastructureError } from "../../core/errors.ts";
import { VERSION } from "../../core/version.ts";
import { missingImageMessage, type Sandbox } from "../../engine/sandbox.ts";
import { openStore, type Store } from "../../store/store.ts";
import type { Suite } from "../../task/load_suite.ts";
import { type Task, tasksByImage } from "../../task/task.ts";
import { agentKind } from "../setup/agent_registry.ts";
import type { LoopSettings } from "../setup/loop_settings.ts";
import { requireSolutions } from "../setup/oracle_solutions.ts";
import { driveRun, type EvalOutcome, type RunDeps } from "./run_lifecycle.ts";
import { type Experiment, type RecordedRunConfig, sessionId } from "../setup/run_identity.ts";
import { claimRunId } from "./run_claim.ts";
import { removeLeftovers } from "./run_lock.ts";
import { type Shard, shardTasks } from "../setup/shard.ts";
import { stageTask } from "../trial/staged_task.ts";
import { readyHarborImages, type ReadyImage } from "../setup/harbor_images.ts";

/** What to evaluate. */
export interface EvalRequest {
  /** The paths the suite was loaded from (recorded, so `resume` can load it again). */
  paths: string[];
  /** The suite (for its digest). */
  suite: Suite;
  /** The selected tasks. */
  tasks: Task[];
  /** The agent's name in the registry (`agent_registry.ts`). */
  agent: string;
  /** The model spec, without secrets; null for agents that use none. */
  model: string | null;
  /** The loop agent's settings (base URL, policy, prices), without secrets; null for others. */
  settings: LoopSettings | null;
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
  /**
   * `--shard K/N`: run only that slice of the tasks (`shard.ts`), under the id of the whole
   * experiment. The configuration records the shard and every selected task.
   */
  shard?: Shard;
}

/** What `runEval` needs from its caller. */
export interface EvalDeps extends RunDeps {
  /** An open store to use instead of `home/verdict.db`. */
  store?: Store;
}

/**
 * Runs an evaluation.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { nopAgent } from "../../agent/nop.ts";
 * import { LogicalClock } from "../../core/clock.ts";
 * import { MemorySandbox } from "../../engine/memory_sandbox.ts";
 * import { loadSuite } from "../../task/load_suite.ts";
 * import { runEval } from "./run_eval.ts";
 * // An engine in memory: every command exits 0, but the task's tests exit 1.
 * const sandbox = new MemorySandbox({
 *   exec: ({ script }) => ({ exitCode: script.includes("tests/test.sh") ? 1 : 0 }),
 * });
 * const home = await Deno.makeTempDir();
 * const suite = await loadSuite(["tasks/fix-slugify"]);
 * const { results } = await runEval(
 *   {
 *     paths: ["tasks/fix-slugify"], suite, tasks: suite.tasks, agent: "nop", model: null,
 *     settings: null, repeat: 1, concurrency: 1, seed: 0, home,
 *   },
 *   {
 *     sandbox, agent: nopAgent, clock: new LogicalClock(), signal: new AbortController().signal,
 *     progress: { runStarted() {}, trialFinished() {} },
 *   },
 * );
 * assert.equal(results.trials[0].bucket, "agent_failure"); // tests/test.sh exited 1
 * await Deno.remove(home, { recursive: true });
 * ```
 * @throws {UsageError} when the agent is unknown, or the oracle agent is asked to run a task with
 * no solution (exit 2).
 * @throws {InfrastructureError} when no engine answers or an image is missing (exit 3).
 */
export async function runEval(request: EvalRequest, deps: EvalDeps): Promise<EvalOutcome> {
  const { suite } = request;
  const kind = agentKind(request.agent);
  if (kind.needs.solutions) requireSolutions(request.tasks);
  await deps.sandbox.ping(deps.signal);
  // Harbor tasks' images are built (or found) first: a missing base image stops the run before
  // anything is recorded.
  // A shard readies, stages and runs only its slice; the experiment is still the whole selection.
  const ready = await readyHarborImages(
    shardTasks(request.tasks, request.shard),
    deps.sandbox,
    deps.signal,
  );
  const tasks = ready.map(({ task }) => task);
  await requireImages(deps.sandbox, tasks.filter((task) => !task.harbor), deps.signal);

  const runsDir = join(request.home, "runs");
  await Deno.mkdir(runsDir, { recursive: true });
  const store = deps.store ?? openStore(join(request.home, "verdict.db"));
  const installed = installedAgent(deps.agent);
  const experiment: Experiment = {
    suite_digest: suite.digest,
    tasks: request.tasks.map((task) => task.id),
    repeat: request.repeat,
    agent: kind.name,
    model: request.model,
    settings: request.settings,
    seed: request.seed,
    harness_version: VERSION,
    // The pass mark decides verdicts: another one is another experiment.
    ...(request.passReward === undefined ? {} : { pass_reward: request.passReward }),
    // Grading waives model-only requirements (tasks check): `resume` must grade the same way.
    ...(deps.waiveModelOnly ? { waive_model_only: true } : {}),
  };
  // An installed agent's own files: a resumed trial mounts them again.
  const agentFiles = installed?.files;
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
          await requireRunnableImages(deps.sandbox, installed, tasks, { id, owner }, deps.signal);
        }
        const config: RecordedRunConfig = {
          ...experiment,
          attempt,
          concurrency: request.concurrency,
          paths: request.paths,
          // Every selected task's, a shard's too: the merged run records what the unsharded one does.
          task_dirs: Object.fromEntries(request.tasks.map((task) => [task.id, task.dir])),
          categories: Object.fromEntries(
            request.tasks.map((task) => [task.id, task.manifest.category]),
          ),
          agent_needs: kind.needs,
          ...(agentFiles ? { agent_files: agentFiles } : {}),
          ...(request.shard ? { shard: request.shard } : {}),
        };
        await keepBuildLogs(join(runsDir, id), ready);
        const staged = await Promise.all(
          tasks.map((task) => stageTask(task, request.settings?.policy)),
        );
        const plans = store.transaction(() => {
          store.runs.create({ id, config, createdAt: deps.clock.now() });
          return staged.flatMap((stagedTask) =>
            Array.from({ length: request.repeat }, (_, repeat) => {
              const session = sessionId(id, stagedTask.task.id, repeat);
              store.runs.createSession({ id: session, run: id, task: stagedTask.task.id, repeat });
              return { run: id, session, staged: stagedTask, repeat };
            })
          );
        });
        return {
          plans,
          pool: { seed: request.seed, concurrency: request.concurrency },
          deps: {
            agent: deps.agent,
            passReward: request.passReward,
            waiveModelOnly: deps.waiveModelOnly,
            crash: deps.crash,
            gateway: deps.gateway,
          },
          cleanedUp: await removeLeftovers(deps.sandbox, runsDir, owner),
        };
      },
    }, deps);
  } finally {
    if (deps.store === undefined) store.close();
  }
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

async function requireImages(
  sandbox: Sandbox,
  tasks: readonly Task[],
  signal: AbortSignal,
): Promise<void> {
  const missing: string[] = [];
  for (const [image, ids] of tasksByImage(tasks)) {
    if (!await sandbox.hasImage(image, signal)) {
      missing.push(`${missingImageMessage(image)} (needed by ${ids.join(", ")})`);
    }
  }
  if (missing.length > 0) throw new InfrastructureError(missing.join("\n"));
}
