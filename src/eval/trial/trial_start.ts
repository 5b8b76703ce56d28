/**
 * Where a trial starts, decided once, before its line runs: a new trial goes down the whole line;
 * an interrupted one (`resume_point.ts` says where it picks up) takes the phases its log does not
 * hold yet. This is the one place that reads a {@linkcode TrialStart}: the phases never ask.
 *
 * @module
 */
import type { AgentOutcome } from "../../agent/agent.ts";
import type { SandboxContainer } from "../../engine/sandbox.ts";
import {
  type AgentRun,
  type AgentSeat,
  type Begun,
  openNew,
  readSealed,
  reopen,
  reopenWithout,
  restoreInto,
  type Resumption,
  sealCheckpoint,
  sealEnd,
  startGraders,
  workAgent,
} from "./trial_phases.ts";
import type { Sealed, TrialStart } from "./trial_plan.ts";
import type { TrialScope } from "./trial_scope.ts";

/** A trial's line from where it starts: which phase does each step. */
export interface TrialLine {
  /** Whether the trial was interrupted before and goes on now. */
  resumed: boolean;
  /** How the agent ended, when it had before the interruption. */
  stopped?: AgentOutcome;
  /** Records how the trial (re)starts and gets the agent its container, if it still needs one. */
  seat(scope: TrialScope): Promise<AgentSeat>;
  /** Lets the agent work, or gives how it had ended. */
  agent(scope: TrialScope, begun: Begun): Promise<AgentOutcome>;
  /** The end state: sealed now, or as the log holds it. */
  endState(scope: TrialScope, begun: Begun): Promise<Sealed>;
}

/**
 * The line of a trial that starts at `from`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { FROM_THE_BEGINNING } from "./trial_plan.ts";
 * import { trialLine } from "./trial_start.ts";
 * assert.equal(trialLine(FROM_THE_BEGINNING).resumed, false);
 * ```
 */
export function trialLine(from: TrialStart): TrialLine {
  switch (from.phase) {
    case "begin":
      return {
        resumed: false,
        seat: openNew,
        agent: (scope, begun) =>
          work(scope, begun, { agent: scope.deps.agent, record: scope.record, elapsedMs: 0 }),
        endState: (scope, begun) => sealEnd(scope, agentContainer(begun)),
      };
    case "agent": {
      const { container, restoreRoot } = from;
      const resumed: Resumption = {
        phase: "agent",
        container: container ? "reused" : "restored",
        root: restoreRoot,
      };
      return {
        resumed: true,
        seat: (scope) =>
          container ? reopen(scope, container, resumed) : restoreInto(scope, restoreRoot, resumed),
        agent: (scope, begun) =>
          work(scope, begun, {
            agent: from.agent,
            record: from.record(scope.record),
            elapsedMs: from.elapsedMs,
          }),
        endState: (scope, begun) => sealEnd(scope, agentContainer(begun)),
      };
    }
    case "seal": {
      const { container, restoreRoot, outcome } = from;
      const resumed: Resumption = {
        phase: "seal",
        container: container ? "reused" : "restored",
        root: restoreRoot,
      };
      return {
        resumed: true,
        stopped: outcome,
        seat: (scope) =>
          container ? reopen(scope, container, resumed) : reopenWithout(scope, resumed),
        agent: () => Promise.resolve(outcome),
        endState: (scope) =>
          container ? sealEnd(scope, container) : sealCheckpoint(scope, restoreRoot),
      };
    }
    case "grade":
      return {
        resumed: true,
        stopped: from.outcome,
        seat: (scope) => reopenWithout(scope, { phase: "grade", root: from.endRoot }),
        agent: () => Promise.resolve(from.outcome),
        endState: (scope) => Promise.resolve(readSealed(scope, from.endRoot)),
      };
  }
}

/**
 * The trial's start: it records how the trial (re)starts, seats the agent, and starts the graders.
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
 * import { FROM_THE_BEGINNING } from "./trial_plan.ts";
 * import { trialScope } from "./trial_scope.ts";
 * import { begin, trialLine } from "./trial_start.ts";
 *
 * const store = openStore(":memory:");
 * store.runs.create({ id: "r1", config: {}, createdAt: 0 });
 * store.runs.createSession({ id: "s1", run: "r1", task: "fix-slugify", repeat: 0 });
 * const staged = await stageTask(await loadTask("tasks/fix-slugify"));
 * const sandbox = new MemorySandbox();
 * const line = trialLine(FROM_THE_BEGINNING);
 * const scope = trialScope({ run: "r1", session: "s1", staged, repeat: 0 }, {
 *   store,
 *   sandbox,
 *   images: sandbox.derivedImages({ "verdict.run": "r1" }),
 *   clock: new LogicalClock({ start: 0, tick: 1 }),
 *   rng: new SplitMix64(1),
 *   agent: nopAgent,
 *   signal: new AbortController().signal,
 *   owner: "0123456789abcdef",
 * }, line.resumed);
 * const begun = await begin(scope, line);
 * await begun.grader;
 * assert.equal(sandbox.live().length, 2); // the agent's container and the grader
 * await scope.removeAll();
 * ```
 */
export async function begin(scope: TrialScope, line: TrialLine): Promise<Begun> {
  return startGraders(scope, await line.seat(scope));
}

// The agent works in the container its seat gave it.
function work(
  scope: TrialScope,
  begun: Begun,
  run: Omit<AgentRun, "resumed">,
): Promise<AgentOutcome> {
  return workAgent(scope, agentContainer(begun), begun.ledger, {
    ...run,
    resumed: scope.resumed,
  });
}

// The lines that run the agent or seal its container always seat it in one.
function agentContainer(begun: Begun): SandboxContainer {
  if (begun.container === undefined) throw new Error("the trial's agent has no container");
  return begun.container;
}
