/**
 * A run's pool: its trials run at most `concurrency` at once, each on a seat bound to an engine
 * (the run's one, or one of its `--engine`s), a trial whose engine is lost put back to go on from
 * its checkpoint on another.
 *
 * @module
 */
import {
  engineLost,
  type EngineSeat,
  engineSeats,
  movedStart,
  noEngineLeft,
  type RunEngine,
} from "./engine_seats.ts";
import type { Agent } from "../../agent/agent.ts";
import type { Clock } from "../../core/clock.ts";
import { SplitMix64 } from "../../core/rng.ts";
import type { DerivedImageSource, Sandbox, SandboxContainer } from "../../engine/sandbox.ts";
import { releaseGatewayFolder } from "../../gateway/serve_gateway.ts";
import { SIDECAR_ROLE } from "../../gateway/sidecar.ts";
import { storeSnapshot } from "../../workspace/snapshot.ts";
import type { RunRecord } from "../../store/run_table.ts";
import type { Store } from "../../store/store.ts";
import type { TrialRecord } from "../../store/trial_record.ts";
import type { RunConfig } from "../setup/run_identity.ts";
import { OWNER_LABEL } from "../trial/run_owner.ts";
import {
  type CrashHook,
  FROM_THE_BEGINNING,
  TrialInterrupted,
  TrialMoved,
  type TrialPlan,
  type TrialStart,
} from "../trial/trial_plan.ts";
import { runTrial, type TrialOutcome } from "../trial/trial.ts";
import { TrialQueue } from "./_trial_queue.ts";
import type { SessionDriver } from "../trial/session_driver.ts";
import type { TrialGatewayFactory } from "../trial/trial_plan.ts";
import { sidecarAhead, socketFolder } from "../trial/trial_gateway.ts";
import { trialContainerStart } from "../trial/trial_scope.ts";
import { WarmContainers } from "../trial/warm_containers.ts";
import { installedAgent } from "../../agent/cmd_agent.ts";

/**
 * Hears about a run as it goes.
 *
 * @example A line per finished trial
 * ```ts
 * import type { Progress } from "./run_pool.ts";
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

/** What a run's trials need from its caller. */
export interface PoolDeps {
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
  /**
   * The agent re-driven through a trial's record first (the loop agent): a trial whose engine is
   * lost goes on from its last checkpoint; without, it starts over (as `resume` has it).
   */
  follow?: (driver: SessionDriver) => Agent;
  /**
   * Several Docker engines (`--engine`), each with its slots: a trial runs on whichever has a free
   * slot, and stays there. `sandbox` is the first of them. Without, every trial runs on `sandbox`.
   */
  engines?: readonly RunEngine[];
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
  deps: PoolDeps,
  store: Store,
  resumeFor?: (plan: TrialPlan) => Promise<TrialStart | undefined>,
): Promise<boolean> {
  const rng = new SplitMix64(settings.seed);
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
    ? warmContainers(plans, { ...settings, images: seats[0].images, signal, rng }, deps)
    : undefined;
  const lost = new Set<string>();
  const queue = new TrialQueue(plans);
  const worker = async (seat: EngineSeat) => {
    const { engine } = seat;
    const stop = () => signal.aborted || (engine !== undefined && lost.has(engine));
    for (let taken; (taken = await queue.take(stop)) !== undefined;) {
      const { plan, index } = taken;
      let again: TrialPlan | undefined;
      warm?.ahead(index);
      try {
        const { record, cleanup } = await runOnSeat(plan, seat, {
          store,
          settings,
          deps,
          signal,
          warm,
          rng,
          resumeFor,
        });
        cleanups.push(cleanup);
        deps.progress.trialFinished(record, ++done, plans.length);
      } catch (error) {
        // Its engine is gone: the trial goes on from its last checkpoint on one that is left.
        if (error instanceof TrialMoved) {
          lost.add(engine!);
          again = { ...plan, moved: { from: engine!, reason: error.reason } };
        } else if (error instanceof TrialInterrupted) interrupted = true;
        else if (failure === undefined) {
          failure = { error };
          failed.abort(error);
        }
      } finally {
        queue.done(again);
      }
    }
  };
  // A worker never rejects: its failure is kept in `failure`.
  await Promise.all(seats.slice(0, Math.max(1, plans.length)).map(worker));
  if (queue.left > 0 && !signal.aborted && failure === undefined) {
    failure = { error: noEngineLeft(queue.left, lost) };
  }
  await Promise.all([...cleanups, warm?.removeUntaken()]);
  if (failure !== undefined) throw failure.error;
  return interrupted || deps.signal.aborted;
}

/**
 * Containers started ahead of a new run's trials (their images built up front), where a trial
 * would start them from its images: the one place that decides it. A trial's agent container and
 * its graders start together, a trial ahead, so neither start is on its critical path; for an
 * installed agent, its gateway's sidecar (forwarder listening, socket folder reserved) first,
 * then the agent's container in the sidecar's network, readied for the agent (its homes, the
 * instruction) as soon as it runs. Not on resume, where a trial may pick up a container that
 * survived.
 */
function warmContainers(
  plans: TrialPlan[],
  settings: PoolSettings & { images: DerivedImageSource; signal: AbortSignal; rng: SplitMix64 },
  deps: Pick<PoolDeps, "agent" | "sandbox">,
): WarmContainers {
  const { images, signal, owner } = settings;
  const installed = installedAgent(deps.agent);
  const sidecars: Promise<SandboxContainer>[] = [];
  const start = (plan: TrialPlan) => trialContainerStart(deps.sandbox, plan, owner, signal);
  return new WarmContainers(plans, settings.concurrency, (plan) => {
    const { staged } = plan;
    const graderImage = staged.kind.graderImage(staged, images, signal);
    const agentImage = staged.kind.agentImage(staged, images, signal);
    const gateway = installed &&
      sidecarAhead(start(plan), installed, trialRng(settings.rng, plan), agentImage, signal);
    if (gateway) sidecars.push(gateway.sidecar);
    return {
      ...(gateway ? { [SIDECAR_ROLE]: gateway.sidecar } : {}),
      agent: gateway
        ? gateway.agent.then((container) => {
          installed.readyAhead(container, staged.task, signal);
          return container;
        })
        : start(plan)("agent", agentImage),
      grader: start(plan)("grader", graderImage),
      ...(staged.task.manifest.success.canary
        ? { canary: start(plan)("grader", graderImage) }
        : {}),
    };
  }, async () => {
    // A trial's gateway removes its folder when it closes; these are the ones never served.
    for (const sidecar of await Promise.all(sidecars.map((each) => each.catch(() => undefined)))) {
      if (sidecar) await releaseGatewayFolder(socketFolder(sidecar));
    }
  });
}

/** A trial's own stream of the run's generator. */
function trialRng(rng: SplitMix64, plan: TrialPlan): SplitMix64 {
  return rng.stream(`trial/${plan.staged.task.id}/${plan.repeat}`);
}

/** What every trial of a pool shares. */
interface PoolContext {
  store: Store;
  settings: PoolSettings;
  deps: PoolDeps;
  signal: AbortSignal;
  warm: WarmContainers | undefined;
  rng: SplitMix64;
  resumeFor?: (plan: TrialPlan) => Promise<TrialStart | undefined>;
}

/**
 * One trial on a seat, from where it starts: a moved one from its last checkpoint, a resumed one
 * where its log says, a new one from the beginning.
 */
async function runOnSeat(
  plan: TrialPlan,
  seat: EngineSeat,
  pool: PoolContext,
): Promise<TrialOutcome> {
  const { engine, sandbox, images } = seat;
  const { store, settings, deps } = pool;
  const from = plan.moved
    ? await movedStart(plan, store, {
      sandbox,
      owner: settings.owner,
      agent: deps.agent,
      follow: deps.follow,
    })
    : await pool.resumeFor?.(plan) ?? FROM_THE_BEGINNING;
  deps.progress.trialStarted?.(plan.staged.task.id, plan.repeat);
  return await runTrial(plan, {
    store,
    sandbox,
    ...(engine === undefined ? {} : { engine, engineLost: () => engineLost(seat) }),
    images,
    clock: deps.clock,
    rng: trialRng(pool.rng, plan),
    agent: deps.agent,
    signal: pool.signal,
    owner: settings.owner,
    waiveModelOnly: deps.waiveModelOnly,
    passReward: deps.passReward,
    crash: deps.crash,
    gateway: deps.gateway,
    warm: pool.warm,
  }, from);
}
