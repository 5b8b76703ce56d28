/**
 * The phases of a trial (`trial.ts` runs them in order): {@linkcode begin} starts its containers,
 * {@linkcode runAgent} lets the agent work, {@linkcode seal} freezes the end state,
 * {@linkcode gradeEndState} grades it and {@linkcode finish} records the verdict. Each phase takes
 * the trial's {@linkcode TrialScope} and the {@linkcode TrialStart}, and does only what the log does
 * not already hold, so a resumed trial goes down the same line.
 *
 * @module
 */
import type { GatewayLedger } from "../../gateway/ledger.ts";
import { posix } from "node:path";
import type { AgentOutcome } from "../../agent/agent.ts";
import { installedAgent } from "../../agent/cmd_agent.ts";
import { type Grade, grade } from "../../grading/grade.ts";
import { gradeHarbor } from "../../grading/harbor_grade.ts";
import { sealContainer } from "../../workspace/container_seal.ts";
import { applyContainerSeal, harborContainer } from "./_harbor_container.ts";
import { AGENT_USER, type ContainerSpec, type SandboxContainer } from "../../engine/sandbox.ts";
import {
  diffSnapshots,
  loadSnapshot,
  sealEntries,
  sealGuard,
  type Snapshot,
  type SnapshotChange,
  snapshotContents,
  storeSnapshot,
} from "../../workspace/snapshot.ts";
import { type CatalogueEvent, EVENT, event } from "../../store/event_catalogue.ts";
import { chainedSummary } from "../../store/run_table.ts";
import type { TrialRecord } from "../../store/trial_record.ts";
import { OWNER_LABEL } from "./run_owner.ts";
import type { TrialDeps, TrialPlan, TrialStart } from "./trial.ts";
import { type AgentContainerSetup, openTrialGateway } from "./trial_gateway.ts";
import { gradePayload, outcomePayload } from "./trial_payloads.ts";

/** What every phase of one trial shares: its plan, its dependencies, its log and its containers. */
export interface TrialScope {
  /** The trial. */
  readonly plan: TrialPlan;
  /** What it runs on. */
  readonly deps: TrialDeps;
  /** Whether it was interrupted before and goes on now. */
  readonly resumed: boolean;
  /** Appends events to the session's log (stamped with the injected clock). */
  record(events: CatalogueEvent[]): void;
  /**
   * Starts a container of the trial in `role` (labelled with the run, session and owner) from
   * `image`, the task's image by default, with `overrides` over the task's spec (its labels
   * stay); it is removed with the trial's others.
   */
  start(
    role: string,
    image?: string | Promise<string>,
    overrides?: Partial<Omit<ContainerSpec, "image" | "labels">>,
  ): Promise<SandboxContainer>;
  /** Takes a container that survived an interrupted process into the trial's. */
  adopt(container: SandboxContainer): void;
  /** Adds what to undo once the trial's containers are removed (say, close its gateway). */
  onRemove(undo: () => Promise<void>): void;
  /** Removes every container the trial started or adopted, then undoes what `onRemove` lists. */
  removeAll(): Promise<void>;
  /** Time since the trial began, on the injected clock, in ms. */
  elapsedMs(): number;
}

/** The containers a trial has once it has begun. */
export interface Begun {
  /** The agent's container; absent when the agent's work is over and its container is gone. */
  agent?: SandboxContainer;
  /** The grader, starting while the agent works. */
  grader: Promise<SandboxContainer>;
  /** A second, separate grader for the canary, when the task has one. */
  canaryGrader?: Promise<SandboxContainer>;
  /** The ledger of the trial's model gateway, for an installed agent that reached one. */
  ledger?: GatewayLedger;
}

/** The sealed end state. */
export interface Sealed {
  /** Its snapshot. */
  final: Snapshot;
  /** How it differs from the staged workspace. */
  changes: SnapshotChange[];
}

/**
 * How a trial's container in `role` is started: the task's image, workdir and network, the agent's
 * user, and the labels that tie it to its run, session and state folder.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { trialContainerSpec } from "./trial_phases.ts";
 * const task = { manifest: { image: "verdict/busybox", workdir: "/workspace", network: "none" } };
 * const plan = { run: "r1", session: "s1", staged: { task } } as Parameters<typeof trialContainerSpec>[0];
 * assert.equal(trialContainerSpec(plan, "0123456789abcdef", "grader").labels["verdict.role"], "grader");
 * ```
 */
export function trialContainerSpec(plan: TrialPlan, owner: string, role: string): ContainerSpec {
  const { manifest, harbor } = plan.staged.task;
  return {
    image: manifest.image,
    workdir: manifest.workdir,
    network: manifest.network,
    labels: {
      "verdict.run": plan.run,
      [OWNER_LABEL]: owner,
      "verdict.session": plan.session,
      "verdict.role": role,
    },
    user: AGENT_USER,
    // The agent's commands decide no verdict: they may take the quicker channel.
    ...(role === "agent" ? { channel: true } : {}),
    ...(harbor ? harborContainer(harbor) : {}),
  };
}

/**
 * The scope of one trial: marks its session running and tracks every container it starts.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { nopAgent } from "../../agent/nop.ts";
 * import { LogicalClock } from "../../core/clock.ts";
 * import { SplitMix64 } from "../../core/rng.ts";
 * import { MemorySandbox } from "../../engine/memory_sandbox.ts";
 * import { openStore } from "../../store/store.ts";
 * import { loadTask } from "../../task/load_task.ts";
 * import { stageTask } from "./staged_task.ts";
 * import { FROM_THE_BEGINNING } from "./trial.ts";
 * import { trialScope } from "./trial_phases.ts";
 *
 * const store = openStore(":memory:");
 * store.runs.create({ id: "r1", config: {}, createdAt: 0 });
 * store.runs.createSession({ id: "s1", run: "r1", task: "fix-slugify", repeat: 0 });
 * const staged = await stageTask(await loadTask("tasks/fix-slugify"));
 * const sandbox = new MemorySandbox();
 * const scope = trialScope({ run: "r1", session: "s1", staged, repeat: 0 }, {
 *   store,
 *   sandbox,
 *   images: sandbox.derivedImages({ "verdict.run": "r1" }),
 *   clock: new LogicalClock({ start: 0, tick: 1 }),
 *   rng: new SplitMix64(1),
 *   agent: nopAgent,
 *   signal: new AbortController().signal,
 *   owner: "0123456789abcdef",
 * }, FROM_THE_BEGINNING);
 * assert.equal(store.runs.session("s1")?.status, "running");
 * const container = await scope.start("agent");
 * assert.deepEqual(sandbox.live().map(({ id }) => id), [container.id]);
 * await scope.removeAll();
 * assert.equal(sandbox.live().length, 0);
 * ```
 */
export function trialScope(plan: TrialPlan, deps: TrialDeps, from: TrialStart): TrialScope {
  const { store, clock } = deps;
  const { manifest } = plan.staged.task;
  const started = clock.monotonic();
  store.runs.setSessionStatus(plan.session, "running");
  const containers: Promise<SandboxContainer | undefined>[] = [];
  const undos: (() => Promise<void>)[] = [];
  return {
    plan,
    deps,
    resumed: from.phase !== "begin",
    record: (events) => void store.events.append(plan.session, events, clock.now()),
    start(role, image = manifest.image, overrides = {}) {
      const starting = Promise.resolve(image).then((name) =>
        deps.sandbox.start(
          { ...trialContainerSpec(plan, deps.owner, role), ...overrides, image: name },
          deps.signal,
        )
      );
      containers.push(starting.catch(() => undefined));
      return starting;
    },
    adopt: (container) => void containers.push(Promise.resolve(container)),
    onRemove: (undo) => void undos.push(undo),
    async removeAll() {
      await Promise.all(containers.map(async (starting) => {
        const container = await starting;
        await container?.remove().catch(() => undefined);
      }));
      await Promise.all(undos.splice(0).map((undo) => undo().catch(() => undefined)));
    },
    elapsedMs: () => clock.monotonic() - started,
  };
}

/**
 * Begins (or picks up) a trial: records that it started or was resumed, gets the agent a
 * container (a new one from the staged image, the one that survived, or a new one restored from
 * the last snapshot), and starts the graders. An installed agent's new container is started in
 * the network namespace of its gateway's sidecar, which is set up first.
 */
export async function begin(scope: TrialScope, from: TrialStart): Promise<Begun> {
  const { plan, deps } = scope;
  const { staged } = plan;
  const { manifest } = staged.task;
  let agent: SandboxContainer | undefined;
  const installed = installedAgent(from.phase === "agent" ? from.agent : deps.agent);
  const needsContainer = from.phase === "begin" || (from.phase === "agent" && !from.container);
  let setup: AgentContainerSetup = {};
  if (from.phase === "begin") {
    scope.record([event(EVENT.trialStarted, {
      task: staged.task.id,
      repeat: plan.repeat,
      agent: deps.agent.name,
      image: manifest.image,
    })]);
  }
  const warmed = from.phase === "begin" && !installed ? deps.warm?.take(plan.session) : undefined;
  const agentImage = from.phase !== "begin" || warmed ? undefined : agentImageOf(plan, deps);
  // The image builds while the gateway opens; a failure to open it leaves the build unawaited.
  agentImage?.catch(() => undefined);
  let ledger: GatewayLedger | undefined;
  if (installed && needsContainer) ({ setup, ledger } = await openTrialGateway(scope, installed));
  if (warmed) {
    agent = await warmed;
    scope.adopt(agent);
  } else if (from.phase === "begin") {
    agent = await scope.start("agent", agentImage!, setup);
  } else {
    if (from.phase !== "grade" && from.container) scope.adopt(from.container);
    if (from.phase === "agent") {
      agent = from.container ?? await restore(scope, from.restoreRoot, setup);
    }
    if (from.phase === "seal") agent = from.container ?? undefined;
    scope.record([event(
      EVENT.trialResumed,
      from.phase === "grade" ? { phase: "grade", root: from.endRoot } : {
        phase: from.phase,
        container: from.container ? "reused" : "restored",
        root: from.restoreRoot,
      },
    )]);
  }
  // The grader starts while the agent works (it sees nothing until grading); starting both at
  // once would slow the agent's start, which is on every trial's critical path.
  const graderImage = graderImageOf(plan, deps);
  const grader = scope.start("grader", graderImage);
  // The canary gets a fresh grader of its own: nothing the success script leaves reaches it.
  const canaryGrader = manifest.success.canary ? scope.start("grader", graderImage) : undefined;
  if (from.phase === "begin") {
    scope.record([event(EVENT.workspaceStaged, {
      root: staged.initial.root,
      entries: staged.initial.entries.length,
    })]);
  }
  return { agent, grader, canaryGrader, ledger };
}

/**
 * The image a trial's agent container starts from: the task's with the staged workspace in it
 * (a Harbor task's own image holds its files already). Built once per run and task.
 */
export function agentImageOf(
  plan: TrialPlan,
  deps: Pick<TrialDeps, "images" | "signal">,
): Promise<string> {
  const { task, tar } = plan.staged;
  if (task.harbor) return Promise.resolve(task.manifest.image);
  return deps.images.imageFor(task.manifest.image, tar, {
    emptyFolder: task.manifest.workdir,
    signal: deps.signal,
  });
}

/** The image a trial's graders start from: the task's with its tests in it. */
export function graderImageOf(
  plan: TrialPlan,
  deps: Pick<TrialDeps, "images" | "signal">,
): Promise<string> {
  const { task, graderTar } = plan.staged;
  return deps.images.imageFor(task.manifest.image, graderTar, {
    ...(task.harbor ? {} : { emptyFolder: task.manifest.workdir }),
    signal: deps.signal,
  });
}

/**
 * Lets the agent work until it stops, and records how it ended; an agent that had already
 * stopped before an interruption is not run again.
 */
export async function runAgent(
  scope: TrialScope,
  begun: Begun,
  from: TrialStart,
): Promise<AgentOutcome> {
  if (from.phase === "seal" || from.phase === "grade") return from.outcome;
  const { plan, deps } = scope;
  const { task } = plan.staged;
  const { workdir, limits } = task.manifest;
  const container = begun.agent!;
  const resumed = from.phase === "agent";
  const ran = await (resumed ? from.agent : deps.agent).run({
    task,
    session: plan.session,
    container,
    record: resumed ? from.record(scope.record) : scope.record,
    storeBlob: (text) => deps.store.blobs.putText(text),
    snapshot: async () =>
      storeSnapshot(
        deps.store.blobs,
        task.harbor
          ? (await sealContainer(container, admit(scope), { final: false })).sealed
          : sealEntries(await container.copyOut(workdir, admit(scope)), posix.basename(workdir)),
      ),
    rng: deps.rng,
    timeoutMs: Math.max(0, limits.timeout_s * 1000 - (resumed ? from.elapsedMs : 0)),
    resumed,
    signal: deps.signal,
  });
  const outcome = begun.ledger ? withGatewayAccount(ran, begun.ledger) : ran;
  const lost = container.channelLost;
  scope.record([event(EVENT.agentStopped, {
    ...outcomePayload(outcome),
    ...(lost === undefined ? {} : { exec_channel_lost: lost }),
  })]);
  return outcome;
}

/**
 * Seals the end state: stops everything in the agent's container (nothing it started may touch
 * the workspace after it stopped), copies the workspace out and stores it. Without a container
 * (it did not survive an interruption after the agent stopped), the last snapshot is the end
 * state; after an interruption past sealing, the sealed one is read back.
 *
 * @throws {UnsealableWorkspaceError} when the end state is past the task's limits.
 */
export async function seal(scope: TrialScope, begun: Begun, from: TrialStart): Promise<Sealed> {
  const { store } = scope.deps;
  const { staged } = scope.plan;
  if (from.phase === "grade") {
    const final = loadSnapshot(store.blobs, from.endRoot);
    return { final, changes: diffSnapshots(staged.initial, final) };
  }
  let final: Snapshot;
  if (staged.task.harbor && begun.agent) {
    const { sealed, changes } = await sealContainer(begun.agent, admit(scope));
    storeSnapshot(store.blobs, sealed);
    scope.record([event(EVENT.endStateSealed, { root: sealed.root, changes })]);
    return { final: sealed, changes };
  }
  if (begun.agent) {
    const { workdir } = staged.task.manifest;
    await begun.agent.stop();
    const sealed = sealEntries(
      await begun.agent.copyOut(workdir, admit(scope)),
      posix.basename(workdir),
    );
    storeSnapshot(store.blobs, sealed);
    final = sealed;
  } else {
    // Only a trial resumed after its agent stopped can be without its container.
    final = loadSnapshot(
      store.blobs,
      from.phase === "seal" ? from.restoreRoot : staged.initial.root,
    );
  }
  const changes = diffSnapshots(staged.initial, final);
  scope.record([event(EVENT.endStateSealed, { root: final.root, changes })]);
  return { final, changes };
}

/** Grades the sealed end state in the fresh graders and records the grade. */
export async function gradeEndState(
  scope: TrialScope,
  begun: Begun,
  outcome: AgentOutcome,
  sealed: Sealed,
): Promise<Grade> {
  const { plan, deps } = scope;
  const grader = await begun.grader;
  const canaryGrader = await begun.canaryGrader;
  await deps.crash?.("grading", 0, scope.resumed);
  const { harbor, manifest } = plan.staged.task;
  const graded = harbor
    ? await gradeHarbor({
      harbor,
      workdir: manifest.workdir,
      blobs: deps.store.blobs,
      final: sealed.final,
      tests: plan.staged.tests,
      grader,
      passReward: deps.passReward ?? 1,
      signal: deps.signal,
    })
    : await grade({
      task: plan.staged.task,
      blobs: deps.store.blobs,
      initial: plan.staged.initial,
      final: sealed.final,
      counters: outcome.counters,
      tests: plan.staged.tests,
      grader,
      canaryGrader,
      waiveModelOnly: deps.waiveModelOnly,
      waiveLoopOnly: installedAgent(deps.agent) !== undefined,
      signal: deps.signal,
    });
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
 * An installed agent's outcome with what its gateway counted: its model calls are its steps, their
 * tokens and cost are its own, and a budget the gateway enforced is why it stopped.
 */
function withGatewayAccount(outcome: AgentOutcome, ledger: GatewayLedger): AgentOutcome {
  const stop = ledger.stop;
  return {
    ...outcome,
    stopReason: stop ? stop.reason : outcome.stopReason,
    ...(stop ? { detail: stop.detail } : {}),
    tokens: ledger.totals.tokens,
    counters: { ...outcome.counters, ...ledger.counters },
  };
}

/** Each seal refuses, as the agent's failure, an end state past the task's limits. */
function admit(scope: TrialScope) {
  const { manifest, harbor } = scope.plan.staged.task;
  // A whole-container seal's paths are relative to `/`, a workspace's to the workdir's parent.
  return sealGuard(harbor ? "/" : manifest.workdir, manifest.limits);
}

/** A new agent container with the workspace of a snapshot. */
async function restore(
  scope: TrialScope,
  root: string,
  setup: AgentContainerSetup,
): Promise<SandboxContainer> {
  const { plan, deps } = scope;
  const container = await scope.start("agent", undefined, setup);
  const snapshot = loadSnapshot(deps.store.blobs, root);
  if (plan.staged.task.harbor) {
    await applyContainerSeal(container, snapshotContents(deps.store.blobs, snapshot), snapshot);
    return container;
  }
  await container.copyIn(
    plan.staged.workspaceTar(snapshotContents(deps.store.blobs, snapshot)),
    "/",
  );
  return container;
}
