/**
 * A run's lifecycle, one for `eval` and `resume`: the run folder taken and locked, the trials
 * run by a pool at most `concurrency` at once (each in its own containers, every one carrying the
 * state folder's owner label), and the outcome: an interrupted run's containers removed, its
 * status recorded, its reports written from the record. What differs (how the run is claimed,
 * how its plans are made, where an interrupted trial picks up) is the caller's.
 *
 * @module
 */
import {
  engineLost,
  engineSandboxes,
  type EngineSeat,
  engineSeats,
  movedPlan,
  noEngineLeft,
  type RunEngine,
} from "./engine_seats.ts";
import type { SigningKey } from "../../core/ed25519.ts";
import { signRun } from "./run_signature.ts";
import { join } from "node:path";
import type { Agent } from "../../agent/agent.ts";
import type { Clock } from "../../core/clock.ts";
import { SplitMix64 } from "../../core/rng.ts";
import type { Results } from "../../report/results.ts";
import { writeRunReports } from "../../report/run_reports.ts";
import type { DerivedImageSource, Sandbox } from "../../engine/sandbox.ts";
import { storeSnapshot } from "../../workspace/snapshot.ts";
import type { RunRecord } from "../../store/run_table.ts";
import type { Store } from "../../store/store.ts";
import type { TrialRecord } from "../../store/trial_record.ts";
import { type RunConfig, runConfig } from "../setup/run_identity.ts";
import type { RunLock } from "./run_lock.ts";
import { OWNER_LABEL, stateOwner } from "../trial/run_owner.ts";
import {
  type CrashHook,
  FROM_THE_BEGINNING,
  TrialInterrupted,
  type TrialPlan,
  type TrialStart,
} from "../trial/trial_plan.ts";
import { runTrial } from "../trial/trial.ts";
import type { TrialGatewayFactory } from "../trial/trial_plan.ts";
import { trialContainerSpec } from "../trial/trial_scope.ts";
import { WarmContainers } from "../trial/warm_containers.ts";
import { installedAgent } from "../../agent/cmd_agent.ts";

/**
 * Hears about a run as it goes.
 *
 * @example A line per finished trial
 * ```ts
 * import type { Progress } from "./run_lifecycle.ts";
 * const progress: Progress = {
 *   runStarted: (run, config, trials) => console.log(`run ${run.id}: ${trials} trials of ${config.agent}`),
 *   trialFinished: (trial, done, total) => console.log(`[${done}/${total}] ${trial.task} ${trial.verdict}`),
 * };
 * ```
 */
export interface Progress {
  /** The run exists and its folder is made; `config` is its configuration, parsed. */
  runStarted(run: RunRecord, config: RunConfig, trials: number, cleanedUp: string[]): void;
  /** A trial began (or went on, when resumed). */
  trialStarted?(task: string, repeat: number): void;
  /** A trial got its verdict. */
  trialFinished(trial: TrialRecord, done: number, total: number): void;
}

/**
 * How a run ended.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MemorySandbox } from "../../engine/memory_sandbox.ts";
 * import { runEval } from "./run_eval.ts";
 * import type { EvalOutcome } from "./run_lifecycle.ts";
 * const home = await Deno.makeTempDir();
 * const outcome: EvalOutcome = await runEval(
 *   { paths: ["tasks/fix-slugify"], agent: "nop", home },
 *   { sandbox: new MemorySandbox() },
 * );
 * assert(!outcome.interrupted && outcome.run.status === "finished");
 * assert.equal(outcome.runDir, `${home}/runs/${outcome.run.id}`);
 * await Deno.remove(home, { recursive: true });
 * ```
 */
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

/** What a run's trials need from its caller. */
export interface RunDeps {
  /** The container engine. */
  sandbox: Sandbox;
  /** The injected clock. */
  clock: Clock;
  /** Aborts on interrupt. */
  signal: AbortSignal;
  /** Progress display. */
  progress: Progress;
  /** The agent. */
  agent: Agent;
  /** Report model-only requirements without failing on them. */
  waiveModelOnly?: boolean;
  /** A Harbor task's reward at or above which its trial passes (default 1). */
  passReward?: number;
  /** Fault injection (the scripted model's crash knob). */
  crash?: CrashHook;
  /** Each trial's model gateway, for an installed agent. */
  gateway?: TrialGatewayFactory;
  /** Signs the run when it ends; unsigned without. */
  signingKey?: SigningKey;
  /**
   * Several Docker engines (`--engine`), each with its slots: a trial runs on whichever has a free
   * slot, and stays there. `sandbox` is the first of them. Without, every trial runs on `sandbox`.
   */
  engines?: readonly RunEngine[];
}

/** A run's folder, taken and locked for this process. */
export interface ClaimedRun {
  /** The run id. */
  id: string;
  /** The lock of `runs/<id>`, released when the run ends. */
  lock: RunLock;
}

/** A claimed run's trials, ready to go. */
export interface PreparedRun {
  /** The trials to run (a resumed run's unfinished ones). */
  plans: TrialPlan[];
  /** Trials at once and the seed. */
  pool: Omit<PoolSettings, "owner">;
  /** The agent, and how grading treats model-only requirements. */
  deps: Pick<RunDeps, "agent" | "waiveModelOnly" | "passReward" | "crash" | "gateway">;
  /** The runs whose leftover containers were removed before this one started. */
  cleanedUp: string[];
  /** Where an interrupted trial picks up (resume). */
  resumeFor?: (plan: TrialPlan) => Promise<TrialStart>;
}

/** How one run is driven: the steps where `eval` and `resume` differ. */
export interface RunSteps {
  /** The state directory. */
  home: string;
  /** The state database, open. */
  store: Store;
  /** Takes the run's folder, `runs/<id>`: made and locked. */
  claim(runsDir: string): Promise<ClaimedRun>;
  /** Makes (and for a new run, records) its trials, with the run's folder locked. */
  prepare(run: { id: string; owner: string }): Promise<PreparedRun>;
}

/**
 * Drives a run from its claim to its outcome: the run folder taken and locked, the trials
 * prepared, the status `running`, progress told, the trials pooled, and the run ended
 * (containers of an interrupted run removed, status, reports). The lock is released however it
 * ends.
 *
 * @example
 * ```ts ignore
 * import { driveRun } from "./run_lifecycle.ts";
 * const outcome = await driveRun({ home, store, claim, prepare }, deps);
 * ```
 */
export async function driveRun(
  steps: RunSteps,
  deps: Omit<RunDeps, "agent" | "waiveModelOnly" | "passReward" | "crash" | "gateway">,
): Promise<EvalOutcome> {
  const { store } = steps;
  const runsDir = join(steps.home, "runs");
  await Deno.mkdir(runsDir, { recursive: true });
  const owner = stateOwner(steps.home);
  const { id, lock } = await steps.claim(runsDir);
  try {
    const prepared = await steps.prepare({ id, owner });
    store.runs.setStatus(id, "running");
    const run = store.runs.get(id)!;
    deps.progress.runStarted(run, runConfig(run), prepared.plans.length, prepared.cleanedUp);
    const interrupted = await runPool(
      prepared.plans,
      { ...prepared.pool, owner },
      { ...deps, ...prepared.deps },
      store,
      prepared.resumeFor,
    );
    return await finishRun({ id, owner, runDir: join(runsDir, id), interrupted }, deps, store);
  } finally {
    lock.release();
  }
}

// Ends a run: an interrupted run's containers are removed, its status recorded, and its reports
// written from the record.
async function finishRun(
  ended: { id: string; owner: string; runDir: string; interrupted: boolean },
  deps: Pick<RunDeps, "sandbox" | "engines" | "signal" | "signingKey">,
  store: Store,
): Promise<EvalOutcome> {
  const { id, owner, runDir, interrupted } = ended;
  if (interrupted) {
    await Promise.all(
      engineSandboxes(deps).map((sandbox) =>
        removeRunContainers(sandbox, id, owner).catch(() => undefined)
      ),
    );
  }
  store.runs.setStatus(id, interrupted ? "interrupted" : "finished");
  const run = store.runs.get(id)!;
  // Signed again as it now stands; a run changed by a writer without a key is unsigned, never
  // left with a signature over what it was (which `verify` would take for forgery).
  if (deps.signingKey) await signRun(store, run, deps.signingKey);
  else store.signatures.remove(id);
  const results = await writeRunReports(store, run, runDir);
  return {
    run,
    results,
    interrupted,
    interruption: interrupted ? deps.signal.reason : undefined,
    runDir,
  };
}

/**
 * Removes the containers of one run of one state folder: with the run's lock held, they are this
 * process's (or ones a killed holder of the run left).
 *
 * @example
 * ```ts
 * import { Docker } from "../../engine/docker.ts";
 * import { DockerSandbox } from "../../engine/docker_sandbox.ts";
 * import { removeRunContainers } from "./run_lifecycle.ts";
 * const sandbox = new DockerSandbox(new Docker({ PATH: "/usr/bin:/bin" }));
 * await removeRunContainers(sandbox, "abc123", "0123456789abcdef");
 * ```
 */
export async function removeRunContainers(
  sandbox: Sandbox,
  run: string,
  owner: string,
): Promise<void> {
  // Listed again after each removal: a start that was under way when the run stopped may only
  // now show its container.
  for (let round = 0; round < 3; round++) {
    const found = await sandbox.findLabelled([`verdict.run=${run}`, `${OWNER_LABEL}=${owner}`]);
    if (found.length === 0) return;
    await sandbox.removeContainers(found.map(({ id }) => id));
  }
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
  deps: RunDeps,
  store: Store,
  resumeFor?: (plan: TrialPlan) => Promise<TrialStart | undefined>,
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
  const seats = engineSeats(deps, settings.concurrency, {
    "verdict.run": plans[0]?.run ?? "",
    [OWNER_LABEL]: settings.owner,
    "verdict.role": "derived-image",
  });
  // Started ahead only on a run's one engine: which engine takes a trial is known when it starts.
  const warm = resumeFor === undefined && deps.engines === undefined
    ? warmContainers(plans, { ...settings, images: seats[0].images, signal }, deps)
    : undefined;
  const lost = new Set<string>();
  const worker = async (seat: EngineSeat) => {
    const { engine, sandbox, images } = seat;
    const left = () => engine === undefined || !lost.has(engine);
    while (next < plans.length && !signal.aborted && left()) {
      const index = next++;
      const plan = plans[index];
      warm?.ahead(index);
      try {
        const from = await resumeFor?.(plan) ?? FROM_THE_BEGINNING;
        deps.progress.trialStarted?.(plan.staged.task.id, plan.repeat);
        const { record, cleanup } = await runTrial(plan, {
          store,
          sandbox,
          ...(engine === undefined ? {} : { engine }),
          images,
          clock: deps.clock,
          rng: rng.stream(`trial/${plan.staged.task.id}/${plan.repeat}`),
          agent: deps.agent,
          signal,
          owner: settings.owner,
          waiveModelOnly: deps.waiveModelOnly,
          passReward: deps.passReward,
          crash: deps.crash,
          gateway: deps.gateway,
          warm,
        }, from);
        cleanups.push(cleanup);
        deps.progress.trialFinished(record, ++done, plans.length);
        // Its engine is gone: the trial moves, as a new attempt, to an engine that is left.
        if (record.bucket === "infrastructure_error" && await engineLost(seat)) {
          lost.add(engine!);
          plans.push(movedPlan(store, plan));
        }
      } catch (error) {
        if (error instanceof TrialInterrupted) interrupted = true;
        else if (failure === undefined) {
          failure = { error };
          failed.abort(error);
        }
      }
    }
  };
  // A worker never rejects: its failure is kept in `failure`.
  await Promise.all(seats.slice(0, Math.max(1, plans.length)).map(worker));
  if (next < plans.length && !signal.aborted && failure === undefined) {
    failure = { error: noEngineLeft(plans.length - next, lost) };
  }
  await Promise.all([...cleanups, warm?.removeUntaken()]);
  if (failure !== undefined) throw failure.error;
  return interrupted || deps.signal.aborted;
}

/**
 * Containers started ahead of a new run's trials (their images built up front), where a trial
 * would start them from its images: the one place that decides it. A trial's agent container and
 * its graders start together, a trial ahead, so neither start is on its critical path. Not for an
 * installed agent, whose container joins its gateway's network, nor on resume, where a trial may
 * pick up a container that survived.
 */
function warmContainers(
  plans: TrialPlan[],
  settings: PoolSettings & { images: DerivedImageSource; signal: AbortSignal },
  deps: Pick<RunDeps, "agent" | "sandbox">,
): WarmContainers | undefined {
  if (installedAgent(deps.agent) !== undefined) return undefined;
  const { images, signal, owner } = settings;
  return new WarmContainers(plans, settings.concurrency, (plan) => {
    const { staged } = plan;
    const start = (role: string, image: Promise<string>) =>
      image.then((name) =>
        deps.sandbox.start({ ...trialContainerSpec(plan, owner, role), image: name }, signal)
      );
    const graderImage = staged.kind.graderImage(staged, images, signal);
    return {
      agent: start("agent", staged.kind.agentImage(staged, images, signal)),
      grader: start("grader", graderImage),
      ...(staged.task.manifest.success.canary ? { canary: start("grader", graderImage) } : {}),
    };
  });
}
