/**
 * Where an interrupted trial picks up: worked out from its log and from the containers the dead
 * process left, as a {@linkcode TrialStart} that the trial's line of phases (`trial.ts`) takes
 * from there.
 *
 * @module
 */
import type { Agent } from "../../agent/agent.ts";
import { SIDECAR_ROLE } from "../../gateway/sidecar.ts";
import type { LabelledContainer, Sandbox, SandboxContainer } from "../../engine/sandbox.ts";
import { EVENT, last } from "../../store/event_catalogue.ts";
import type { StoredEvent } from "../../store/event_log.ts";
import { agentEvents, type SessionDriver, sessionDriver } from "../trial/session_driver.ts";
import { FROM_THE_BEGINNING, type TrialPlan, type TrialStart } from "../trial/trial_plan.ts";
import { outcomeFromPayload } from "../trial/trial_payloads.ts";
import { trialContainerSpec } from "../trial/trial_scope.ts";

/** What resume knows besides a trial's log. */
export interface ResumeContext {
  /** The container engine. */
  sandbox: Sandbox;
  /** The state folder's owner label value. */
  owner: string;
  /** The run's agent. */
  agent: Agent;
  /**
   * The agent re-driven through a record (the loop agent: answers from the record, then live);
   * absent for agents with no record to follow (oracle, nop), which start over.
   */
  follow?: (driver: SessionDriver) => Agent;
}

/**
 * Where a trial picks up. A trial whose log is empty never started and begins anew. Graders
 * left by the dead process are never reused; the agent's container is reused when it survived and
 * can still serve (running while the agent worked; also stopped once the agent stopped, as it
 * holds the end state), and every other leftover of the trial is removed.
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
 * import { trialStartFrom } from "./resume_point.ts";
 * import { stageTask } from "../trial/staged_task.ts";
 * import { FROM_THE_BEGINNING } from "../trial/trial_plan.ts";
 * import { trialScope } from "../trial/trial_scope.ts";
 * import { begin, trialLine } from "../trial/trial_start.ts";
 *
 * const store = openStore(":memory:");
 * store.runs.create({ id: "r1", config: {}, createdAt: 0 });
 * store.runs.createSession({ id: "s1", run: "r1", task: "fix-slugify", repeat: 0 });
 * const staged = await stageTask(await loadTask("tasks/fix-slugify"));
 * const plan = { run: "r1", session: "s1", staged, repeat: 0 };
 * const sandbox = new MemorySandbox();
 * const owner = "0123456789abcdef";
 * // A process began the trial (its agent's and grader's containers started), then died.
 * const scope = trialScope(plan, {
 *   store,
 *   sandbox,
 *   images: sandbox.derivedImages({ "verdict.run": "r1" }),
 *   clock: new LogicalClock({ start: 0, tick: 1 }),
 *   rng: new SplitMix64(1),
 *   agent: nopAgent,
 *   signal: new AbortController().signal,
 *   owner,
 * }, false);
 * await (await begin(scope, trialLine(FROM_THE_BEGINNING))).grader;
 * const leftovers = await sandbox.findLabelled(["verdict.run=r1", `verdict.owner=${owner}`], [
 *   "verdict.session",
 *   "verdict.role",
 * ]);
 * const from = await trialStartFrom(plan, store.events.read("s1"), leftovers, {
 *   sandbox,
 *   owner,
 *   agent: nopAgent,
 * });
 * // The nop agent has no record to follow: it starts over; the dead process's containers are gone.
 * assert.equal(from.phase, "agent");
 * assert.equal(sandbox.live().length, 0);
 * ```
 */
export async function trialStartFrom(
  plan: TrialPlan,
  events: readonly StoredEvent[],
  leftovers: readonly LabelledContainer[],
  context: ResumeContext,
): Promise<TrialStart> {
  const { sandbox } = context;
  const role = (name: string) =>
    leftovers.filter((container) => container.labels["verdict.role"] === name);
  if (events.length === 0) {
    await sandbox.removeContainers(ids(leftovers));
    return FROM_THE_BEGINNING;
  }
  const stopped = last(events, EVENT.agentStopped);
  const sealed = last(events, EVENT.endStateSealed);
  // The trial was interrupted and is resumed, whichever phase it was in.
  const outcome = stopped && outcomeFromPayload(stopped.payload);
  if (outcome) outcome.counters = { ...outcome.counters, resumed: true };
  // Once the end state is sealed, the agent's container has no use either. A gateway's sidecar
  // is never reused: its gateway died with the process (an agent that goes on gets a new one).
  const sealedAlready = outcome !== undefined && sealed !== undefined;
  await sandbox.removeContainers(
    ids([...role("grader"), ...role(SIDECAR_ROLE), ...(sealedAlready ? role("agent") : [])]),
  );
  if (outcome && sealed) return { phase: "grade", outcome, endRoot: sealed.payload.root };

  const snapshot = last(agentEvents(events), EVENT.workspaceSnapshot);
  const staged = last(events, EVENT.workspaceStaged);
  const restoreRoot = snapshot?.payload.root ?? staged?.payload.root ?? plan.staged.initial.root;
  const container = await survivingAgentContainer(plan, context, role("agent"), !outcome);
  // A stopped agent's end state is in its container, or, for the loop agent, in the checkpoint
  // after its last tool result.
  if (outcome && (container !== null || context.follow !== undefined)) {
    return { phase: "seal", outcome, container, restoreRoot };
  }
  if (context.follow === undefined) {
    // The oracle and nop agents have no record to follow: they start over on the staged workspace.
    // So does an installed agent: its program's state (its conversation, its files outside the
    // workspace) died with its container and its gateway, and cannot be rebuilt from the record.
    // Nor do they keep checkpoints: one that stopped and lost its container before its end state
    // was sealed has none to grade (the staged workspace graded would blame it for the loss).
    await container?.remove();
    return {
      phase: "agent",
      agent: context.agent,
      record: (append) => append,
      container: null,
      restoreRoot: plan.staged.initial.root,
      elapsedMs: 0,
    };
  }
  const driver = sessionDriver(events);
  const times = driver.recorded.map((event) => event.at).filter((at): at is number =>
    typeof at === "number"
  );
  return {
    phase: "agent",
    agent: context.follow(driver),
    record: (append) => driver.record(append),
    container,
    restoreRoot,
    elapsedMs: times.length > 1 ? times[times.length - 1] - times[0] : 0,
  };
}

/** The trial's agent container, if it survived: reused as it is; the others are removed. */
async function survivingAgentContainer(
  plan: TrialPlan,
  context: ResumeContext,
  found: LabelledContainer[],
  running: boolean,
): Promise<SandboxContainer | null> {
  // Running: the agent was still at work. Exited: killed for its seal, which it still holds.
  const usable = running ? ["running"] : ["running", "exited"];
  const alive = found.find((container) => usable.includes(container.state));
  await context.sandbox.removeContainers(
    ids(found.filter((container) => container !== alive)),
  );
  if (alive === undefined) return null;
  return context.sandbox.adopt(alive.id, trialContainerSpec(plan, context.owner, "agent"));
}

function ids(containers: readonly LabelledContainer[]): string[] {
  return containers.map(({ id }) => id);
}
