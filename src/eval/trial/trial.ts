/**
 * One trial, as a straight line: start, agent, seal, grade, finish. Where it starts is decided
 * once, before the line runs (`trial_start.ts`: a new trial, or an interrupted one picking up at
 * the phase its log reached); what the kind of task changes is the staged task's kind
 * (chosen when the task is staged, `staged_task.ts`). Everything is recorded in the session's log; an
 * infrastructure fault is never blamed on the agent.
 *
 * @module
 */
import type { TrialRecord } from "../../store/trial_record.ts";
import { failedGrade, type TrialProgress, trialRecord } from "./trial_payloads.ts";
import { finish, gradeEndState } from "./trial_phases.ts";
import {
  FROM_THE_BEGINNING,
  type TrialDeps,
  TrialInterrupted,
  TrialMoved,
  type TrialPlan,
  type TrialStart,
} from "./trial_plan.ts";
import { trialScope } from "./trial_scope.ts";
import { begin, trialLine } from "./trial_start.ts";

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
 * @throws {TrialMoved} when it would end without a pass and its engine is lost (the session is
 * left unfinished, to go on elsewhere).
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
 * import { runTrial } from "./trial.ts";
 * import { FROM_THE_BEGINNING } from "./trial_plan.ts";
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
  const line = trialLine(from);
  const scope = trialScope(plan, deps, line.resumed);
  const progress: TrialProgress = { outcome: line.stopped, endRoot: null, changedPaths: 0 };
  const identity = {
    task: plan.staged.task.id,
    repeat: plan.repeat,
    session: plan.session,
    initialRoot: plan.staged.initial.root,
  };
  let result: TrialRecord;
  try {
    const begun = await begin(scope, line);
    progress.outcome = await line.agent(scope, begun);
    const sealing = line.endState(scope, begun);
    // Grading starts while the end state is sealed; it fails with the seal when that fails.
    const grading = gradeEndState(scope, begun, progress.outcome, sealing);
    grading.catch(() => {});
    const sealed = await sealing;
    progress.endRoot = sealed.final.root;
    progress.changedPaths = sealed.changes.length;
    const graded = await grading;
    result = trialRecord(identity, progress, graded, scope.elapsedMs());
  } catch (error) {
    if (deps.signal.aborted) {
      await scope.removeAll();
      throw new TrialInterrupted();
    }
    result = trialRecord(identity, progress, failedGrade(error), scope.elapsedMs());
  }
  // A grader or a command killed by its dying engine would read as the agent's failure.
  if (result.bucket !== "pass" && await deps.engineLost?.()) {
    scope.removeAll().catch(() => undefined);
    throw new TrialMoved(result.reason);
  }
  finish(scope, result);
  return { record: result, cleanup: scope.removeAll() };
}
