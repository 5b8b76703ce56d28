/**
 * What every phase of one trial shares ({@linkcode TrialScope}): its plan, its dependencies, its
 * log, and the containers it started, each labelled with its run, session, role and state folder
 * ({@linkcode trialContainerSpec}).
 *
 * @module
 */
import { type InstalledAgent, installedAgent } from "../../agent/cmd_agent.ts";
import {
  AGENT_USER,
  type ContainerSpec,
  type Sandbox,
  type SandboxContainer,
} from "../../engine/sandbox.ts";
import type { CatalogueEvent } from "../../store/event_catalogue.ts";
import { sealGuard } from "../../workspace/snapshot.ts";
import { OWNER_LABEL } from "./run_owner.ts";
import type { Admit, TrialDeps, TrialPlan } from "./trial_plan.ts";

/** What every phase of one trial shares: its plan, its dependencies, its log and its containers. */
export interface TrialScope {
  /** The trial. */
  readonly plan: TrialPlan;
  /** What it runs on. */
  readonly deps: TrialDeps;
  /** Whether it was interrupted before and goes on now. */
  readonly resumed: boolean;
  /** The agent as an installed one (its gateway, its loop-only requirements waived), if it is. */
  readonly installed: InstalledAgent | undefined;
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
  /**
   * Takes a container started ahead into the trial's (removed with them, once started); returns
   * it.
   */
  adoptStarting(starting: Promise<SandboxContainer>): Promise<SandboxContainer>;
  /** Adds what to undo once the trial's containers are removed (say, close its gateway). */
  onRemove(undo: () => Promise<void>): void;
  /** Removes every container the trial started or adopted, then undoes what `onRemove` lists. */
  removeAll(): Promise<void>;
  /** Time since the trial began, on the injected clock, in ms. */
  elapsedMs(): number;
  /**
   * A new guard for one copy of the workspace: refuses, as the agent's failure, an end state
   * past the task's limits (it counts, so each copy takes its own).
   */
  admit(): Admit;
}

/**
 * How a trial's container in `role` is started: the task's image, workdir and network, the agent's
 * user, the task kind's settings, and the labels that tie it to its run, session and state folder.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { trialContainerSpec } from "./trial_scope.ts";
 * import { VERDICT_TASK } from "./verdict_task.ts";
 * const task = { manifest: { image: "verdict/busybox", workdir: "/workspace", network: "none" } };
 * const plan = { run: "r1", session: "s1", staged: { task, kind: VERDICT_TASK } } as Parameters<
 *   typeof trialContainerSpec
 * >[0];
 * assert.equal(trialContainerSpec(plan, "0123456789abcdef", "grader").labels["verdict.role"], "grader");
 * ```
 */
export function trialContainerSpec(plan: TrialPlan, owner: string, role: string): ContainerSpec {
  const { task, kind } = plan.staged;
  const { manifest } = task;
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
    ...kind.containerSpec,
  };
}

/** Starts one of a trial's containers: its role, its image (or the one being built), overrides. */
export type TrialContainerStart = (
  role: string,
  image: Promise<string> | string,
  overrides?: Partial<ContainerSpec>,
) => Promise<SandboxContainer>;

/**
 * How `plan`'s containers start on `sandbox`, labelled for the trial and its owner: what the
 * trial's scope and the containers started ahead of it both use.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MemorySandbox } from "../../engine/memory_sandbox.ts";
 * import { loadTask } from "../../task/load_task.ts";
 * import { stageTask } from "./staged_task.ts";
 * import { trialContainerStart } from "./trial_scope.ts";
 * const staged = await stageTask(await loadTask("tasks/fix-slugify"));
 * const plan = { run: "r1", session: "s1", staged, repeat: 0 };
 * const start = trialContainerStart(new MemorySandbox(), plan, "0123456789abcdef");
 * const grader = await start("grader", "verdict/busybox");
 * assert.equal(grader.spec.labels["verdict.session"], "s1");
 * ```
 */
export function trialContainerStart(
  sandbox: Sandbox,
  plan: TrialPlan,
  owner: string,
  signal?: AbortSignal,
): TrialContainerStart {
  return (role, image, overrides = {}) =>
    Promise.resolve(image).then((name) =>
      sandbox.start({ ...trialContainerSpec(plan, owner, role), ...overrides, image: name }, signal)
    );
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
 * import { trialScope } from "./trial_scope.ts";
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
 * }, false);
 * assert.equal(store.runs.session("s1")?.status, "running");
 * const container = await scope.start("agent");
 * assert.deepEqual(sandbox.live().map(({ id }) => id), [container.id]);
 * await scope.removeAll();
 * assert.equal(sandbox.live().length, 0);
 * ```
 */
export function trialScope(plan: TrialPlan, deps: TrialDeps, resumed: boolean): TrialScope {
  const { store, clock } = deps;
  const { task, kind } = plan.staged;
  const started = clock.monotonic();
  store.runs.setSessionStatus(plan.session, "running");
  const containers: Promise<SandboxContainer | undefined>[] = [];
  const undos: (() => Promise<void>)[] = [];
  const startContainer = trialContainerStart(deps.sandbox, plan, deps.owner, deps.signal);
  return {
    plan,
    deps,
    resumed,
    installed: installedAgent(deps.agent),
    record: (events) => void store.events.append(plan.session, events, clock.now()),
    start(role, image = task.manifest.image, overrides = {}) {
      const starting = startContainer(role, image, overrides);
      containers.push(starting.catch(() => undefined));
      return starting;
    },
    adopt: (container) => void containers.push(Promise.resolve(container)),
    adoptStarting(starting) {
      containers.push(starting.catch(() => undefined));
      return starting;
    },
    onRemove: (undo) => void undos.push(undo),
    async removeAll() {
      await Promise.all(containers.map(async (starting) => {
        const container = await starting;
        await container?.remove().catch(() => undefined);
      }));
      await Promise.all(undos.splice(0).map((undo) => undo().catch(() => undefined)));
    },
    elapsedMs: () => clock.monotonic() - started,
    // A whole-container seal's paths are relative to `/`, a workspace's to the workdir's parent.
    admit: () => sealGuard(kind.sealRoot(task), task.manifest.limits),
  };
}
