/**
 * `verdict eval`: trials = tasks × repeats, at most `concurrency` at once, each in its own
 * containers; results in the store and in `runs/<id>/results.json` and `report.md`. An interrupt
 * stops new trials, kills the running ones, removes the run's containers and keeps every finished
 * trial. Every container carries the state folder's owner label (`run_owner.ts`), and every sweep
 * selects by it: another state folder's containers are never touched, even of a run with the same
 * id.
 *
 * @module
 */
import { join } from "node:path";
import type { Agent } from "../agent/agent.ts";
import type { Clock } from "../core/clock.ts";
import { InfrastructureError } from "../core/errors.ts";
import { SplitMix64 } from "../core/rng.ts";
import { VERSION } from "../core/version.ts";
import type { Results, TrialRecord } from "../report/results.ts";
import { writeRunReports } from "../report/run_reports.ts";
import { findLabelled, missingImageMessage, removeContainers } from "../sandbox/container.ts";
import { storeSnapshot } from "../sandbox/snapshot.ts";
import type { Docker } from "../sandbox/docker.ts";
import { DerivedImages } from "../sandbox/derived_image.ts";
import type { RunRecord } from "../store/run_table.ts";
import { openStore, type Store } from "../store/store.ts";
import type { Suite } from "../task/load_suite.ts";
import type { Task } from "../task/task.ts";
import { requireSolutions } from "./oracle_solutions.ts";
import { claimRunId, type Experiment, sessionId } from "./run_identity.ts";
import { removeLeftovers } from "./run_lock.ts";
import { OWNER_LABEL, stateOwner } from "./run_owner.ts";
import { stageTask } from "./staged_task.ts";
import {
  type CrashHook,
  type ResumePoint,
  runTrial,
  TrialInterrupted,
  type TrialPlan,
} from "./trial.ts";

/** What to evaluate. */
export interface EvalRequest {
  /** The paths the suite was loaded from (recorded, so `resume` can load it again). */
  paths: string[];
  /** The suite (for its digest). */
  suite: Suite;
  /** The selected tasks. */
  tasks: Task[];
  /** The agent's name. */
  agent: string;
  /** The model spec, without secrets; null for agents that use none. */
  model: string | null;
  /** Settings that shape trajectories (base URL, policy, prices), without secrets. */
  settings: Record<string, unknown> | null;
  /** Repeats per task. */
  repeat: number;
  /** Trials at once. */
  concurrency: number;
  /** The seed. */
  seed: number;
  /** The state directory. */
  home: string;
}

/** Hears about a run as it goes. */
export interface Progress {
  /** The run exists and its folder is made. */
  runStarted(run: RunRecord, trials: number, cleanedUp: string[]): void;
  /** A trial got its verdict. */
  trialFinished(trial: TrialRecord, done: number, total: number): void;
}

/** What `runEval` needs from its caller. */
export interface EvalDeps {
  /** The docker CLI. */
  docker: Docker;
  /** The injected clock. */
  clock: Clock;
  /** Aborts on interrupt. */
  signal: AbortSignal;
  /** Progress display. */
  progress: Progress;
  /** The agent for the request. */
  agent: Agent;
  /** Report model-only requirements without failing on them. */
  waiveModelOnly?: boolean;
  /** An open store to use instead of `home/verdict.db`. */
  store?: Store;
  /** Fault injection (the scripted model's crash knob). */
  crash?: CrashHook;
}

/** How a run ended. */
export interface EvalOutcome {
  /** The run, with its final status. */
  run: RunRecord;
  /** Its results (also in `runs/<id>/results.json`). */
  results: Results;
  /** Whether an interrupt stopped it. */
  interrupted: boolean;
  /** What stopped it: the interrupt signal's reason; undefined when it was not interrupted. */
  interruption?: unknown;
  /** The run folder. */
  runDir: string;
}

/**
 * Runs an evaluation.
 *
 * @throws {UsageError} when the oracle agent is asked to run a task with no solution (exit 2).
 * @throws {InfrastructureError} when no engine answers or an image is missing (exit 3).
 */
export async function runEval(request: EvalRequest, deps: EvalDeps): Promise<EvalOutcome> {
  const { suite, tasks } = request;
  if (deps.agent.name === "oracle") requireSolutions(tasks);
  await deps.docker.ping(deps.signal);
  await requireImages(deps.docker, tasks, deps.signal);

  const runsDir = join(request.home, "runs");
  await Deno.mkdir(runsDir, { recursive: true });
  const store = deps.store ?? openStore(join(request.home, "verdict.db"));
  try {
    const owner = stateOwner(request.home);
    const experiment: Experiment = {
      suite_digest: suite.digest,
      tasks: tasks.map((task) => task.id),
      repeat: request.repeat,
      agent: request.agent,
      model: request.model,
      settings: request.settings,
      seed: request.seed,
      harness_version: VERSION,
    };
    const { id, attempt, lock } = await claimRunId(store, experiment, runsDir);
    const runDir = join(runsDir, id);
    try {
      const config = {
        ...experiment,
        attempt,
        concurrency: request.concurrency,
        // Grading waives model-only requirements (tasks check): `resume` must grade the same way.
        ...(deps.waiveModelOnly ? { waive_model_only: true } : {}),
        paths: request.paths,
        task_dirs: Object.fromEntries(tasks.map((task) => [task.id, task.dir])),
        categories: Object.fromEntries(tasks.map((task) => [task.id, task.manifest.category])),
      };
      const policy = request.settings?.policy as string | undefined;
      const staged = await Promise.all(tasks.map((task) => stageTask(task, policy)));
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
      const cleanedUp = await removeLeftovers(deps.docker, runsDir, owner);
      deps.progress.runStarted(store.runs.get(id)!, plans.length, cleanedUp);

      const interrupted = await runPool(plans, { ...request, owner }, deps, store);
      return await finishRun({ id, owner, runDir, interrupted }, deps, store);
    } finally {
      lock.release();
    }
  } finally {
    if (deps.store === undefined) store.close();
  }
}

/**
 * Removes the containers of one run of one state folder: with the run's lock held, they are this
 * process's (or ones a killed holder of the run left).
 *
 * @example
 * ```ts
 * import { Docker } from "../sandbox/docker.ts";
 * import { removeRunContainers } from "./run_eval.ts";
 * await removeRunContainers(new Docker({ PATH: "/usr/bin:/bin" }), "abc123", "0123456789abcdef");
 * ```
 */
export async function removeRunContainers(
  docker: Docker,
  run: string,
  owner: string,
): Promise<void> {
  // Listed again after each removal: a start that was under way when the run stopped may only
  // now show its container.
  for (let round = 0; round < 3; round++) {
    const found = await findLabelled(docker, [`verdict.run=${run}`, `${OWNER_LABEL}=${owner}`]);
    if (found.length === 0) return;
    await removeContainers(docker, found.map(({ id }) => id));
  }
}

/**
 * Ends a run that `eval` or `resume` drove: an interrupted run's containers are removed, its
 * status recorded, and its reports written from the record.
 *
 * @example
 * ```ts ignore
 * import { finishRun } from "./run_eval.ts";
 * const outcome = await finishRun({ id, owner, runDir, interrupted }, deps, store);
 * ```
 */
export async function finishRun(
  ended: { id: string; owner: string; runDir: string; interrupted: boolean },
  deps: Pick<EvalDeps, "docker" | "signal">,
  store: Store,
): Promise<EvalOutcome> {
  const { id, owner, runDir, interrupted } = ended;
  if (interrupted) await removeRunContainers(deps.docker, id, owner).catch(() => undefined);
  store.runs.setStatus(id, interrupted ? "interrupted" : "finished");
  const run = store.runs.get(id)!;
  const results = await writeRunReports(store, run, runDir);
  return {
    run,
    results,
    interrupted,
    interruption: interrupted ? deps.signal.reason : undefined,
    runDir,
  };
}

/** How `runPool` runs trials. */
export interface PoolSettings {
  /** The run's seed. */
  seed: number;
  /** Trials at once. */
  concurrency: number;
  /** The state folder's owner label value, put on every container. */
  owner: string;
}

/**
 * Runs trials, at most `concurrency` at once; `resumeFor` tells where an interrupted one picks
 * up. Returns whether an interrupt stopped the run. When one trial fails beyond a verdict (the
 * store, the resume hook, the progress display), the others are stopped and waited for, their
 * containers removed, and then the failure is thrown: nothing of the run keeps going after the
 * caller releases its lock.
 */
export async function runPool(
  plans: TrialPlan[],
  settings: PoolSettings,
  deps: EvalDeps,
  store: Store,
  resumeFor?: (plan: TrialPlan) => Promise<ResumePoint | undefined>,
): Promise<boolean> {
  const rng = new SplitMix64(settings.seed);
  let next = 0;
  let done = 0;
  let interrupted = false;
  let failure: { error: unknown } | undefined;
  const failed = new AbortController();
  const signal = AbortSignal.any([deps.signal, failed.signal]);
  const cleanups: Promise<void>[] = [];
  // Every trial starts from its task's initial snapshot, and a resumed one may be restored from it.
  for (const staged of new Set(plans.map((plan) => plan.staged))) {
    storeSnapshot(store.blobs, staged.initial);
  }
  const images = new DerivedImages(deps.docker, {
    "verdict.run": plans[0]?.run ?? "",
    [OWNER_LABEL]: settings.owner,
    "verdict.role": "derived-image",
  });
  const worker = async () => {
    while (next < plans.length && !signal.aborted) {
      const plan = plans[next++];
      try {
        const resume = await resumeFor?.(plan);
        const { record, cleanup } = await runTrial(plan, {
          store,
          docker: deps.docker,
          images,
          clock: deps.clock,
          rng: rng.stream(`trial/${plan.staged.task.id}/${plan.repeat}`),
          agent: deps.agent,
          signal,
          owner: settings.owner,
          waiveModelOnly: deps.waiveModelOnly,
          crash: deps.crash,
        }, resume);
        cleanups.push(cleanup);
        deps.progress.trialFinished(record, ++done, plans.length);
      } catch (error) {
        if (error instanceof TrialInterrupted) interrupted = true;
        else if (failure === undefined) {
          failure = { error };
          failed.abort(error);
        }
      }
    }
  };
  const workers = Array.from(
    { length: Math.max(1, Math.min(settings.concurrency, plans.length)) },
    worker,
  );
  await Promise.all(workers); // a worker never rejects: its failure is kept in `failure`
  await Promise.all(cleanups);
  if (failure !== undefined) throw failure.error;
  return interrupted || deps.signal.aborted;
}

async function requireImages(
  docker: Docker,
  tasks: readonly Task[],
  signal: AbortSignal,
): Promise<void> {
  const byImage = new Map<string, string[]>();
  for (const task of tasks) {
    byImage.set(task.manifest.image, [...(byImage.get(task.manifest.image) ?? []), task.id]);
  }
  const missing: string[] = [];
  for (const [image, ids] of byImage) {
    if (!await docker.hasImage(image, signal)) {
      missing.push(`${missingImageMessage(image)} (needed by ${ids.join(", ")})`);
    }
  }
  if (missing.length > 0) throw new InfrastructureError(missing.join("\n"));
}
