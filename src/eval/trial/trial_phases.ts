/**
 * The phases of a trial, each written once: the agent gets its container ({@linkcode openNew},
 * or for an interrupted trial {@linkcode reopen}, {@linkcode restoreInto} or
 * {@linkcode reopenWithout}), the graders start ({@linkcode startGraders}), the agent works
 * ({@linkcode workAgent}), the end state is sealed ({@linkcode sealEnd}, or read from the log:
 * {@linkcode sealCheckpoint}, {@linkcode readSealed}), graded ({@linkcode gradeEndState}), and
 * the verdict recorded ({@linkcode finish}). Which of them a trial takes is decided once, by its
 * start (`trial_start.ts`); what differs between kinds of task is the staged task's kind.
 *
 * @module
 */
import type { Agent, AgentOutcome } from "../../agent/agent.ts";
import type { SandboxContainer } from "../../engine/sandbox.ts";
import type { GatewayLedger } from "../../gateway/ledger.ts";
import { SIDECAR_ROLE } from "../../gateway/sidecar.ts";
import type { Grade } from "../../grading/grade.ts";
import {
  type CatalogueEvent,
  EVENT,
  event,
  type EventPayload,
} from "../../store/event_catalogue.ts";
import { chainedSummary } from "../../store/run_table.ts";
import type { TrialRecord } from "../../store/trial_record.ts";
import { diffSnapshots, loadSnapshot, storeSnapshot } from "../../workspace/snapshot.ts";
import { type AgentContainerSetup, type OpenedGateway, openTrialGateway } from "./trial_gateway.ts";
import { gradePayload, outcomePayload, withAgentStop } from "./trial_payloads.ts";
import type { Sealed } from "./trial_plan.ts";
import type { TrialScope } from "./trial_scope.ts";

/** The agent's container as a trial (re)starts: none once the agent's work is over. */
export interface AgentSeat {
  /** The agent's container. */
  container?: SandboxContainer;
  /** The ledger of the trial's model gateway, for an installed agent that got one. */
  ledger?: GatewayLedger;
  /** Graders started ahead for this trial, already the trial's (removed with it). */
  warmGraders?: Partial<Record<"grader" | "canary", Promise<SandboxContainer>>>;
}

/** The containers a trial has once it has begun. */
export interface Begun extends AgentSeat {
  /** The grader, starting while the agent works. */
  grader: Promise<SandboxContainer>;
  /** A second, separate grader for the canary, when the task has one. */
  canaryGrader?: Promise<SandboxContainer>;
}

/** How the agent works in this trial: from the start, or going on after an interruption. */
export interface AgentRun {
  /** The agent (a resumed one answers from its record first). */
  agent: Agent;
  /** Appends its events (a resumed one leaves out what the log holds). */
  record: (events: CatalogueEvent[]) => void;
  /** Agent time already used, in ms. */
  elapsedMs: number;
  /** Whether it goes on after an interruption. */
  resumed: boolean;
}

/** What `trial.resumed` says about where the trial picked up. */
export type Resumption = EventPayload<typeof EVENT.trialResumed>;

/**
 * A new trial: records that it started, gets the agent a container (one started ahead, or a new
 * one from the staged image, in the network namespace of its gateway's sidecar for an installed
 * agent), and records the staged workspace.
 */
export async function openNew(scope: TrialScope): Promise<AgentSeat> {
  const { plan, deps } = scope;
  const { staged } = plan;
  scope.record([event(EVENT.trialStarted, {
    task: staged.task.id,
    repeat: plan.repeat,
    agent: deps.agent.name,
    image: staged.task.manifest.image,
    ...(plan.retryOf === undefined ? {} : { retry_of: plan.retryOf }),
    ...(deps.engine === undefined ? {} : { engine: deps.engine }),
  })]);
  // What was started ahead for this trial is the trial's from here on: removed with it, even
  // when it fails before it uses them.
  const [warmed, grader, canary, sidecar] = (["agent", "grader", "canary", SIDECAR_ROLE] as const)
    .map((role) => {
      const starting = deps.warm?.take(plan.session, role);
      return starting && scope.adoptStarting(starting);
    });
  const image = warmed ? undefined : staged.kind.agentImage(staged, deps.images, deps.signal);
  // The image builds while the gateway opens; a failure to open it leaves the build unawaited.
  image?.catch(() => undefined);
  const { setup, ledger, fill } = await agentSurroundings(scope, sidecar);
  const container = warmed ? await warmed : await scope.start("agent", image!, setup);
  await fill?.(container);
  scope.record([event(EVENT.workspaceStaged, {
    root: staged.initial.root,
    entries: staged.initial.entries.length,
  })]);
  return { container, ledger, warmGraders: { grader, canary } };
}

/** An interrupted trial whose agent container survived: it is taken back as it is. */
export function reopen(
  scope: TrialScope,
  container: SandboxContainer,
  resumed: Resumption,
): Promise<AgentSeat> {
  scope.adopt(container);
  scope.record([event(EVENT.trialResumed, where(scope, resumed))]);
  return Promise.resolve({ container });
}

/**
 * An interrupted trial whose agent goes on without its container: a new one, from the task's
 * image, with the workspace of the checkpoint `root` put back.
 */
export async function restoreInto(
  scope: TrialScope,
  root: string,
  resumed: Resumption,
): Promise<AgentSeat> {
  const { plan, deps } = scope;
  const { setup, ledger, fill } = await agentSurroundings(scope);
  const container = await scope.start("agent", undefined, setup);
  await fill?.(container);
  const snapshot = loadSnapshot(deps.store.blobs, root);
  await plan.staged.kind.restore(plan.staged, container, deps.store.blobs, snapshot);
  scope.record([event(EVENT.trialResumed, where(scope, resumed))]);
  return { container, ledger };
}

/** `resumed` with the engine the trial goes on on, and the one it moved from, when it did. */
function where(scope: TrialScope, resumed: Resumption): Resumption {
  const { plan, deps } = scope;
  return {
    ...resumed,
    ...(deps.engine === undefined ? {} : { engine: deps.engine }),
    ...(plan.moved === undefined
      ? {}
      : { moved_from: { engine: plan.moved.from, reason: plan.moved.reason } }),
  };
}

/** An interrupted trial whose agent's work is over and whose container is gone. */
export function reopenWithout(scope: TrialScope, resumed: Resumption): Promise<AgentSeat> {
  scope.record([event(EVENT.trialResumed, where(scope, resumed))]);
  return Promise.resolve({});
}

/**
 * The graders, from the image with the tests in it: the ones started ahead with the agent's
 * container, or else started now, while the agent works (a grader sees nothing until grading;
 * starting them before the agent's would slow the agent's start, which is on every trial's
 * critical path). The canary gets a fresh grader of its own: nothing the success script leaves
 * reaches it.
 */
export function startGraders(scope: TrialScope, seat: AgentSeat): Begun {
  const { plan: { staged, session }, deps } = scope;
  let image: Promise<string> | undefined;
  const grader = (role: "grader" | "canary") => {
    const adopted = seat.warmGraders?.[role];
    if (adopted) return adopted;
    const warmed = deps.warm?.take(session, role);
    if (warmed) return scope.adoptStarting(warmed);
    image ??= staged.kind.graderImage(staged, deps.images, deps.signal);
    return scope.start("grader", image);
  };
  const success = grader("grader");
  const canaryGrader = staged.task.manifest.success.canary ? grader("canary") : undefined;
  const { warmGraders: _, ...rest } = seat;
  return { ...rest, grader: success, canaryGrader };
}

/** Lets the agent work in its container until it stops, and records how it ended. */
export async function workAgent(
  scope: TrialScope,
  container: SandboxContainer,
  ledger: GatewayLedger | undefined,
  run: AgentRun,
): Promise<AgentOutcome> {
  const { plan, deps } = scope;
  const { staged } = plan;
  const ran = await run.agent.run({
    task: staged.task,
    session: plan.session,
    container,
    record: run.record,
    storeBlob: (text) => deps.store.blobs.putText(text),
    snapshot: async () =>
      storeSnapshot(
        deps.store.blobs,
        await staged.kind.checkpoint(staged, container, scope.admit()),
      ),
    rng: deps.rng,
    timeoutMs: Math.max(0, staged.task.manifest.limits.timeout_s * 1000 - run.elapsedMs),
    resumed: run.resumed,
    signal: deps.signal,
    // An installed agent's clock starts at its run's start, so a replay can show it the same.
    clockStart: deps.store.runs.get(plan.run)?.createdAt,
  });
  // The trial ends when the agent does: what it left behind may not call its model any more.
  ledger?.close();
  const outcome = ledger ? withGatewayAccount(ran, ledger) : ran;
  const lost = container.channelLost;
  scope.record([event(EVENT.agentStopped, {
    ...outcomePayload(outcome),
    ...(lost === undefined ? {} : { exec_channel_lost: lost }),
  })]);
  return outcome;
}

/**
 * Seals the end state from the agent's container: everything in it is stopped (nothing the agent
 * started may touch the workspace after it stopped), the end state is copied out and stored.
 *
 * @throws {UnsealableWorkspaceError} when the end state is past the task's limits.
 */
export async function sealEnd(scope: TrialScope, container: SandboxContainer): Promise<Sealed> {
  const { staged } = scope.plan;
  const { sealed, changes } = await staged.kind.seal(staged, container, scope.admit());
  storeSnapshot(scope.deps.store.blobs, sealed);
  scope.record([event(EVENT.endStateSealed, { root: sealed.root, changes })]);
  return { final: sealed, changes };
}

/** Seals, as the end state, the last checkpoint: the agent had stopped and its container is gone. */
export function sealCheckpoint(scope: TrialScope, root: string): Promise<Sealed> {
  const sealed = readSealed(scope, root);
  scope.record([event(EVENT.endStateSealed, { root: sealed.final.root, changes: sealed.changes })]);
  return Promise.resolve(sealed);
}

/** The end state sealed before an interruption, read back. */
export function readSealed(scope: TrialScope, root: string): Sealed {
  const final = loadSnapshot(scope.deps.store.blobs, root);
  return { final, changes: diffSnapshots(scope.plan.staged.initial, final) };
}

/**
 * Grades the end state in the fresh graders, once sealed (the graders' work may start while it is
 * being sealed), and records the grade.
 */
export async function gradeEndState(
  scope: TrialScope,
  begun: Begun,
  outcome: AgentOutcome,
  sealing: Promise<Sealed>,
): Promise<Grade> {
  const { plan: { staged }, deps } = scope;
  const grader = await begun.grader;
  const canaryGrader = await begun.canaryGrader;
  const final = sealing.then(async (sealed) => {
    await deps.crash?.("grading", 0, scope.resumed);
    return sealed.final;
  });
  const graded = withAgentStop(
    await staged.kind.grade({
      staged,
      blobs: deps.store.blobs,
      final,
      outcome,
      grader,
      canaryGrader,
      deps,
      installed: scope.installed !== undefined,
    }),
    outcome,
  );
  scope.record([event(EVENT.gradingFinished, gradePayload(graded))]);
  return graded;
}

/**
 * Records the trial's result: the `trial.verdict` event closes the log in the same transaction
 * that stores the result, so `verify` can hold one to the other.
 */
export function finish(scope: TrialScope, result: TrialRecord): void {
  const { store } = scope.deps;
  store.transaction(() => {
    scope.record([event(EVENT.trialVerdict, chainedSummary(result))]);
    store.runs.finishSession(scope.plan.session, result);
  });
}

/**
 * What surrounds a new agent container: for an installed agent, its gateway (served, its sidecar
 * started) and how the container joins it; nothing for Verdict's own agents.
 */
async function agentSurroundings(
  scope: TrialScope,
  sidecarAhead?: Promise<SandboxContainer>,
): Promise<Partial<OpenedGateway> & { setup: AgentContainerSetup }> {
  return scope.installed
    ? await openTrialGateway(scope, scope.installed, sidecarAhead)
    : { setup: {} };
}

/**
 * An installed agent's outcome with what its gateway counted: its model calls are its steps, their
 * tokens and cost are its own, a budget the gateway enforced is why it stopped, and the calls its
 * provider failed go with it to grading.
 */
function withGatewayAccount(outcome: AgentOutcome, ledger: GatewayLedger): AgentOutcome {
  const { stop, providerFailure } = ledger;
  return {
    ...outcome,
    stopReason: stop ? stop.reason : outcome.stopReason,
    ...(stop ? { detail: stop.detail } : {}),
    tokens: ledger.totals.tokens,
    counters: { ...outcome.counters, ...ledger.counters },
    ...(providerFailure ? { providerFailure } : {}),
  };
}
