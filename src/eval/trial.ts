/**
 * One trial: the agent works in a fresh container, the end state is sealed once every process in
 * it is frozen, and grading happens in a second fresh container. Everything is recorded in the
 * session's log; an infrastructure fault is never blamed on the agent.
 *
 * @module
 */
import { posix } from "node:path";
import type { Agent, AgentOutcome } from "../agent/agent.ts";
import type { Clock } from "../core/clock.ts";
import { InfrastructureError, VerdictError } from "../core/errors.ts";
import { usdToNumber } from "../core/money.ts";
import type { Rng } from "../core/rng.ts";
import { type Grade, grade } from "../grading/grade.ts";
import type { RunCounters } from "../grading/requirements.ts";
import type { TrialRecord } from "../report/results.ts";
import { AGENT_USER, type Container, startContainer } from "../sandbox/container.ts";
import type { Docker } from "../sandbox/docker.ts";
import { diffSnapshots, sealEntries, storeSnapshot } from "../sandbox/snapshot.ts";
import type { NewEvent } from "../store/event_log.ts";
import type { Store } from "../store/store.ts";
import type { StagedTask } from "./staged_task.ts";

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

/** What a trial needs from its run. */
export interface TrialDeps {
  /** The state database. */
  store: Store;
  /** The docker CLI. */
  docker: Docker;
  /** The injected clock. */
  clock: Clock;
  /** The trial's seeded random stream. */
  rng: Rng;
  /** The agent. */
  agent: Agent;
  /** Aborts when the run is interrupted. */
  signal: AbortSignal;
  /** Report requirements only a model can meet without failing on them (tasks check). */
  waiveModelOnly?: boolean;
}

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
 * Runs one trial to a verdict and records it as the session's result.
 *
 * @throws {TrialInterrupted} when the run is interrupted (the session is left unfinished).
 */
export async function runTrial(plan: TrialPlan, deps: TrialDeps): Promise<TrialOutcome> {
  const { store, clock, docker } = deps;
  const { task, initial } = plan.staged;
  const manifest = task.manifest;
  const record = (events: NewEvent[]) => void store.events.append(plan.session, events);
  const started = clock.monotonic();
  store.runs.setSessionStatus(plan.session, "running");
  record([{
    kind: "trial.started",
    payload: { task: task.id, repeat: plan.repeat, agent: deps.agent.name, image: manifest.image },
  }]);
  const labels = (role: string) => ({
    "verdict.run": plan.run,
    "verdict.session": plan.session,
    "verdict.role": role,
  });
  const spec = { image: manifest.image, workdir: manifest.workdir, network: manifest.network };
  const containers: Promise<Container | undefined>[] = [];
  const start = (role: string, user?: string) => {
    const starting = startContainer(docker, { ...spec, labels: labels(role), user }, deps.signal);
    containers.push(starting.catch(() => undefined));
    return starting;
  };

  let outcome: AgentOutcome | undefined;
  let endRoot: string | null = null;
  let changedPaths = 0;
  let result: TrialRecord;
  try {
    const agentContainer = await start("agent", AGENT_USER);
    // The grader starts while the agent works (it sees nothing until grading); starting both at
    // once would slow the agent's start, which is on every trial's critical path.
    const graderStarting = start("grader");
    await agentContainer.copyIn(plan.staged.tar, "/");
    storeSnapshot(store.blobs, initial);
    record([{
      kind: "workspace.staged",
      payload: { root: initial.root, entries: initial.entries.length },
    }]);

    outcome = await deps.agent.run({
      task,
      session: plan.session,
      container: agentContainer,
      record,
      storeBlob: (text) => store.blobs.putText(text),
      clock,
      rng: deps.rng,
      deadline: clock.monotonic() + manifest.limits.timeout_s * 1000,
      signal: deps.signal,
    });
    record([{
      kind: "agent.stopped",
      payload: {
        stop_reason: outcome.stopReason,
        detail: outcome.detail ?? null,
        ...countersPayload(outcome.counters),
      },
    }]);

    await agentContainer.pause(); // nothing it started may touch the workspace after it stopped
    const final = sealEntries(
      await agentContainer.copyOut(manifest.workdir),
      posix.basename(manifest.workdir),
    );
    endRoot = storeSnapshot(store.blobs, final);
    const changes = diffSnapshots(initial, final);
    changedPaths = changes.length;
    record([{ kind: "end_state.sealed", payload: { root: endRoot, changes } }]);

    const graded = await grade({
      task,
      blobs: store.blobs,
      initial,
      final,
      counters: outcome.counters,
      grader: await graderStarting,
      waiveModelOnly: deps.waiveModelOnly,
      signal: deps.signal,
    });
    record([{ kind: "grading.finished", payload: gradePayload(graded) }]);
    result = trialRecord(plan, outcome, graded, endRoot, changedPaths, clock.monotonic() - started);
  } catch (error) {
    if (deps.signal.aborted) {
      await removeAll(containers);
      throw new TrialInterrupted();
    }
    const infrastructure = error instanceof InfrastructureError;
    const reason = error instanceof VerdictError || error instanceof Error
      ? error.message
      : String(error);
    result = trialRecord(
      plan,
      outcome,
      {
        verdict: "fail",
        bucket: infrastructure ? "infrastructure_error" : "evaluator_error",
        reason: infrastructure ? reason : `the harness failed: ${reason}`,
        checks: [],
        requirements: [],
        success: null,
        canary: null,
      },
      endRoot,
      changedPaths,
      clock.monotonic() - started,
    );
  }
  store.transaction(() => {
    record([{
      kind: "trial.verdict",
      payload: { verdict: result.verdict, bucket: result.bucket, reason: result.reason },
    }]);
    store.runs.finishSession(plan.session, result as unknown as Record<string, unknown>);
  });
  return { record: result, cleanup: removeAll(containers) };
}

async function removeAll(containers: Promise<Container | undefined>[]): Promise<void> {
  await Promise.all(containers.map(async (starting) => {
    const container = await starting;
    await container?.remove().catch(() => undefined);
  }));
}

function trialRecord(
  plan: TrialPlan,
  outcome: AgentOutcome | undefined,
  graded: Grade,
  endRoot: string | null,
  changedPaths: number,
  durationMs: number,
): TrialRecord {
  const counters = outcome?.counters;
  const script = (run: Grade["success"]) =>
    run &&
    { script: run.script, exit_code: run.exitCode, timed_out: run.timedOut, output: run.output };
  return {
    task: plan.staged.task.id,
    repeat: plan.repeat,
    session: plan.session,
    verdict: graded.verdict,
    bucket: graded.bucket,
    reason: graded.reason,
    stop_reason: outcome?.stopReason ?? null,
    steps: counters?.steps ?? 0,
    tool_calls: counters?.toolCalls ?? 0,
    denied_calls: counters?.deniedCalls ?? 0,
    compactions: counters?.compactions ?? 0,
    tokens: outcome?.tokens ?? { input: 0, output: 0 },
    cost_usd: counters?.costUsd == null ? null : usdToNumber(counters.costUsd),
    end_state_root: endRoot,
    initial_root: plan.staged.initial.root,
    changed_paths: changedPaths,
    duration_ms: Math.round(durationMs),
    checks: graded.checks,
    requirements: graded.requirements.map((requirement) => ({
      kind: requirement.key,
      passed: requirement.passed,
      detail: requirement.detail,
      model_only: requirement.modelOnly,
    })),
    success: script(graded.success),
    canary: script(graded.canary),
  };
}

function countersPayload(counters: RunCounters): Record<string, unknown> {
  return { ...counters, costUsd: counters.costUsd === null ? null : counters.costUsd.toString() };
}

// The scripts' output (timings, dates) differs from run to run; it goes to the results, not the
// hash chain, so the same seed gives the same event hashes. Exit codes are chained.
function gradePayload(graded: Grade): Record<string, unknown> {
  const script = (run: Grade["success"]) =>
    run && { script: run.script, exit_code: run.exitCode, timed_out: run.timedOut };
  return {
    verdict: graded.verdict,
    bucket: graded.bucket,
    reason: graded.reason,
    checks: graded.checks,
    requirements: graded.requirements,
    success: script(graded.success),
    canary: script(graded.canary),
  };
}
