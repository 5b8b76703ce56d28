/**
 * One trial, as a straight line of phases (`trial_phases.ts`): begin, run the agent, seal the end
 * state once every process in the container is killed, grade it in fresh containers, finish. An
 * interrupted trial goes down the same line from the phase its log says it reached: resume works
 * that out (`resume_point.ts`) and hands it over as a {@linkcode TrialStart}. Everything is
 * recorded in the session's log; an infrastructure fault is never blamed on the agent.
 *
 * @module
 */
import type { Agent, AgentOutcome } from "../../agent/agent.ts";
import type { Clock } from "../../core/clock.ts";
import type { Rng } from "../../core/rng.ts";
import type { CrashPoint } from "../../model/model_spec.ts";
import type { DerivedImageSource, Sandbox, SandboxContainer } from "../../engine/sandbox.ts";
import type { CatalogueEvent } from "../../store/event_catalogue.ts";
import type { WarmContainers } from "./warm_containers.ts";
import type { Store } from "../../store/store.ts";
import type { TrialRecord } from "../../store/trial_record.ts";
import type { StagedTask } from "./staged_task.ts";
import type { TrialGatewayFactory } from "./trial_gateway.ts";
import { begin, finish, gradeEndState, runAgent, seal, trialScope } from "./trial_phases.ts";
import { failedGrade, type TrialProgress, trialRecord } from "./trial_payloads.ts";

/** Which trial to run. */
export interface TrialPlan {
  /** The run. */
  run: string;
  /** The session (one per trial). */
  session: string;
  /** The staged task. */
  staged: StagedTask;
  /** The repeat index. */
  repeat: number;
}

/** A named point where a crash can be injected; `grading` is the trial's own. */
export type CrashHook = (point: CrashPoint, step: number, resumed: boolean) => Promise<void>;

/** What a trial needs from its run. */
export interface TrialDeps {
  /** The state database. */
  store: Store;
  /** The container engine. */
  sandbox: Sandbox;
  /**
   * Where a trial's containers get their images: the agent's with the workspace already in it,
   * the grader's with the tests.
   */
  images: DerivedImageSource;
  /** The injected clock. */
  clock: Clock;
  /** The trial's seeded random stream. */
  rng: Rng;
  /** The agent. */
  agent: Agent;
  /** Aborts when the run is interrupted. */
  signal: AbortSignal;
  /** The state folder's owner label value (`run_owner.ts`), put on every container. */
  owner: string;
  /** A Harbor task's reward at or above which its trial passes (default 1). */
  passReward?: number;
  /** Report requirements only a model can meet without failing on them (tasks check). */
  waiveModelOnly?: boolean;
  /** Fault injection (the scripted model's crash knob). */
  crash?: CrashHook;
  /** Agent containers started ahead of their trials (`warm_containers.ts`), when the run keeps any. */
  warm?: WarmContainers;
  /**
   * Makes the trial's model gateway, for an installed agent (`--agent cmd:...`): required by
   * those, unused by Verdict's own agents.
   */
  gateway?: TrialGatewayFactory;
}

/** Filters what a resumed agent records: events already in the log are not written again. */
export type RecordFilter = (
  append: (events: CatalogueEvent[]) => void,
) => (events: CatalogueEvent[]) => void;

/**
 * Where a trial starts: from the beginning, or, for an interrupted one, at the phase its log
 * reached, with what the log already holds.
 */
export type TrialStart =
  | {
    /** A new trial: stage the workspace, then the whole line. */
    phase: "begin";
  }
  | {
    /** The agent had not stopped: it goes on, re-driven through its record first. */
    phase: "agent";
    /** The agent as resumed (answers from the record, then live). */
    agent: Agent;
    /** Leaves out what the log already holds. */
    record: RecordFilter;
    /** The trial's container if it survived, else null. */
    container: SandboxContainer | null;
    /** The workspace to restore into a new container. */
    restoreRoot: string;
    /** Agent time already used, in ms. */
    elapsedMs: number;
  }
  | {
    /** The agent had stopped: seal, then grade. */
    phase: "seal";
    /** How the agent ended. */
    outcome: AgentOutcome;
    /** The trial's container if it survived, else null. */
    container: SandboxContainer | null;
    /** The workspace to seal when the container is gone. */
    restoreRoot: string;
  }
  | {
    /** The end state was sealed: grade it. */
    phase: "grade";
    /** How the agent ended. */
    outcome: AgentOutcome;
    /** The sealed end state. */
    endRoot: string;
  };

/** The start of a trial that has not begun. */
export const FROM_THE_BEGINNING: TrialStart = { phase: "begin" };

/** The run was interrupted while this trial ran; the session stays unfinished. */
export class TrialInterrupted extends Error {
  /** Makes the error. */
  constructor() {
    super("the trial was interrupted");
    this.name = "TrialInterrupted";
  }
}

/** A finished trial. */
export interface TrialOutcome {
  /** Its result, as recorded. */
  record: TrialRecord;
  /**
   * The removal of its containers, still under way: it is off the trial's critical path, and the
   * run awaits it before it ends.
   */
  cleanup: Promise<void>;
}

/**
 * Runs one trial to a verdict and records it as the session's result; `from` continues an
 * interrupted one.
 *
 * @throws {TrialInterrupted} when the run is interrupted (the session is left unfinished).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { nopAgent } from "../../agent/nop.ts";
 * import { LogicalClock } from "../../core/clock.ts";
 * import { SplitMix64 } from "../../core/rng.ts";
 * import { MemorySandbox } from "../../engine/memory_sandbox.ts";
 * import { storeSnapshot } from "../../workspace/snapshot.ts";
 * import { openStore } from "../../store/store.ts";
 * import { loadTask } from "../../task/load_task.ts";
 * import { stageTask } from "./staged_task.ts";
 * import { FROM_THE_BEGINNING, runTrial } from "./trial.ts";
 *
 * const store = openStore(":memory:");
 * store.runs.create({ id: "r1", config: {}, createdAt: 0 });
 * store.runs.createSession({ id: "s1", run: "r1", task: "fix-slugify", repeat: 0 });
 * const staged = await stageTask(await loadTask("tasks/fix-slugify"));
 * storeSnapshot(store.blobs, staged.initial);
 * // The nop agent leaves the bug in, so the task's script (run after unpacking) fails.
 * const sandbox = new MemorySandbox({ exec: ({ unpacked }) => unpacked ? { exitCode: 1 } : {} });
 * const { record, cleanup } = await runTrial({ run: "r1", session: "s1", staged, repeat: 0 }, {
 *   store,
 *   sandbox,
 *   images: sandbox.derivedImages({ "verdict.run": "r1" }),
 *   clock: new LogicalClock({ start: 0, tick: 1 }),
 *   rng: new SplitMix64(1),
 *   agent: nopAgent,
 *   signal: new AbortController().signal,
 *   owner: "0123456789abcdef",
 * }, FROM_THE_BEGINNING);
 * await cleanup;
 * assert.equal(record.verdict, "fail");
 * assert.equal(record.bucket, "agent_failure");
 * assert.equal(sandbox.live().length, 0);
 * ```
 */
export async function runTrial(
  plan: TrialPlan,
  deps: TrialDeps,
  from: TrialStart = FROM_THE_BEGINNING,
): Promise<TrialOutcome> {
  const scope = trialScope(plan, deps, from);
  const progress: TrialProgress = {
    outcome: from.phase === "seal" || from.phase === "grade" ? from.outcome : undefined,
    endRoot: null,
    changedPaths: 0,
  };
  const identity = {
    task: plan.staged.task.id,
    repeat: plan.repeat,
    session: plan.session,
    initialRoot: plan.staged.initial.root,
  };
  let result: TrialRecord;
  try {
    const begun = await begin(scope, from);
    progress.outcome = await runAgent(scope, begun, from);
    const sealed = await seal(scope, begun, from);
    progress.endRoot = sealed.final.root;
    progress.changedPaths = sealed.changes.length;
    const graded = await gradeEndState(scope, begun, progress.outcome, sealed);
    result = trialRecord(identity, progress, graded, scope.elapsedMs());
  } catch (error) {
    if (deps.signal.aborted) {
      await scope.removeAll();
      throw new TrialInterrupted();
    }
    result = trialRecord(identity, progress, failedGrade(error), scope.elapsedMs());
  }
  finish(scope, result);
  return { record: result, cleanup: scope.removeAll() };
}
