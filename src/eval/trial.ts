/**
 * One trial: the agent works in a fresh container, the end state is sealed once every process in
 * it is killed, and grading happens in a second fresh container. Everything is recorded in the
 * session's log; an infrastructure fault is never blamed on the agent. An interrupted trial
 * picks up where its log ends (see `resume.ts`).
 *
 * @module
 */
import { posix } from "node:path";
import type { Agent, AgentOutcome } from "../agent/agent.ts";
import type { Clock } from "../core/clock.ts";
import { InfrastructureError, VerdictError } from "../core/errors.ts";
import { usdToNumber } from "../core/money.ts";
import type { Rng } from "../core/rng.ts";
import { type Grade, grade, type ScriptRun } from "../grading/grade.ts";
import type { RunCounters } from "../grading/requirements.ts";
import type { ReportedScript, TrialRecord } from "../report/results.ts";
import { AGENT_USER, type Container, startContainer } from "../sandbox/container.ts";
import type { Docker } from "../sandbox/docker.ts";
import type { CrashPoint } from "../model/model_spec.ts";
import type { DerivedImages } from "../sandbox/derived_image.ts";
import {
  diffSnapshots,
  loadSnapshot,
  sealEntries,
  sealGuard,
  type Snapshot,
  snapshotTarEntries,
  storeSnapshot,
} from "../sandbox/snapshot.ts";
import { UnsealableWorkspaceError } from "../sandbox/unsealable.ts";
import type { NewEvent } from "../store/event_log.ts";
import { chainedSummary, VERDICT_EVENT } from "../store/run_table.ts";
import type { Store } from "../store/store.ts";
import { OWNER_LABEL } from "./run_owner.ts";
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

/** A named point where a crash can be injected; `grading` is the trial's own. */
export type CrashHook = (point: CrashPoint, step: number, resumed: boolean) => Promise<void>;

/** What a trial needs from its run. */
export interface TrialDeps {
  /** The state database. */
  store: Store;
  /** The docker CLI. */
  docker: Docker;
  /**
   * Where a trial's containers get their images: the agent's with the workspace already in it,
   * the grader's with the tests.
   */
  images: DerivedImages;
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
  /** Report requirements only a model can meet without failing on them (tasks check). */
  waiveModelOnly?: boolean;
  /** Fault injection (the scripted model's crash knob). */
  crash?: CrashHook;
}

/** Where an interrupted trial picks up, worked out from its log by `resume.ts`. */
export type ResumePoint =
  | {
    /** The agent had not stopped: it goes on, re-driven through its record first. */
    phase: "agent";
    /** The agent as resumed (answers from the record, then live). */
    agent: Agent;
    /** Filters what the resumed agent records: events already in the log are not written again. */
    record: (append: (events: NewEvent[]) => void) => (events: NewEvent[]) => void;
    /** The trial's container if it survived, else null. */
    container: Container | null;
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
    container: Container | null;
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
 * Runs one trial to a verdict and records it as the session's result; with `resume`, continues an
 * interrupted one.
 *
 * @throws {TrialInterrupted} when the run is interrupted (the session is left unfinished).
 */
export async function runTrial(
  plan: TrialPlan,
  deps: TrialDeps,
  resume?: ResumePoint,
): Promise<TrialOutcome> {
  const { store, clock, docker } = deps;
  const { task, initial } = plan.staged;
  const manifest = task.manifest;
  const record = (events: NewEvent[]) =>
    void store.events.append(plan.session, events, clock.now());
  const started = clock.monotonic();
  store.runs.setSessionStatus(plan.session, "running");
  const labels = (role: string) => ({
    "verdict.run": plan.run,
    [OWNER_LABEL]: deps.owner,
    "verdict.session": plan.session,
    "verdict.role": role,
  });
  const spec = { image: manifest.image, workdir: manifest.workdir, network: manifest.network };
  const containers: Promise<Container | undefined>[] = [];
  const start = (role: string, user: string, image: string | Promise<string> = spec.image) => {
    const starting = Promise.resolve(image).then((name) =>
      startContainer(docker, { ...spec, image: name, labels: labels(role), user }, deps.signal)
    );
    containers.push(starting.catch(() => undefined));
    return starting;
  };
  const adopt = (container: Container) => containers.push(Promise.resolve(container));
  const workdirName = posix.basename(manifest.workdir);
  // Each seal refuses, as the agent's failure, an end state past the task's limits.
  const admit = () => sealGuard(manifest.workdir, manifest.limits);
  const restore = async (root: string) => {
    const container = await start("agent", AGENT_USER);
    const prefix = manifest.workdir.replace(/^\/+/, "");
    await container.copyIn(
      plan.staged.packWorkspace(
        snapshotTarEntries(store.blobs, loadSnapshot(store.blobs, root), prefix),
      ),
      "/",
    );
    return container;
  };

  let outcome: AgentOutcome | undefined = resume && resume.phase !== "agent"
    ? resume.outcome
    : undefined;
  let endRoot: string | null = null;
  let changedPaths = 0;
  let result: TrialRecord;
  try {
    let agentContainer: Container | undefined;
    if (resume === undefined) {
      record([{
        kind: "trial.started",
        payload: {
          task: task.id,
          repeat: plan.repeat,
          agent: deps.agent.name,
          image: manifest.image,
        },
      }]);
      agentContainer = await start(
        "agent",
        AGENT_USER,
        deps.images.imageFor(manifest.image, plan.staged.tar, {
          emptyFolder: manifest.workdir,
          signal: deps.signal,
        }),
      );
    } else {
      if (resume.phase !== "grade" && resume.container) adopt(resume.container);
      if (resume.phase === "agent") {
        agentContainer = resume.container ?? await restore(resume.restoreRoot);
      }
      if (resume.phase === "seal") agentContainer = resume.container ?? undefined;
      record([{
        kind: "trial.resumed",
        payload: resume.phase === "grade" ? { phase: "grade", root: resume.endRoot } : {
          phase: resume.phase,
          container: resume.container ? "reused" : "restored",
          root: resume.restoreRoot,
        },
      }]);
    }
    // The grader starts while the agent works (it sees nothing until grading); starting both at
    // once would slow the agent's start, which is on every trial's critical path.
    const graderImage = deps.images.imageFor(manifest.image, plan.staged.graderTar, {
      emptyFolder: manifest.workdir,
      signal: deps.signal,
    });
    const graderStarting = start("grader", AGENT_USER, graderImage);
    // The canary gets a fresh grader of its own: nothing the success script leaves reaches it.
    const canaryGraderStarting = manifest.success.canary
      ? start("grader", AGENT_USER, graderImage)
      : undefined;

    if (resume === undefined) {
      record([{
        kind: "workspace.staged",
        payload: { root: initial.root, entries: initial.entries.length },
      }]);
    }

    if (resume === undefined || resume.phase === "agent") {
      const container = agentContainer!;
      const agent = resume?.agent ?? deps.agent;
      outcome = await agent.run({
        task,
        session: plan.session,
        container,
        record: resume ? resume.record(record) : record,
        storeBlob: (text) => store.blobs.putText(text),
        snapshot: async () =>
          storeSnapshot(
            store.blobs,
            sealEntries(await container.copyOut(manifest.workdir, admit()), workdirName),
          ),
        rng: deps.rng,
        timeoutMs: Math.max(0, manifest.limits.timeout_s * 1000 - (resume?.elapsedMs ?? 0)),
        resumed: resume !== undefined,
        signal: deps.signal,
      });
      record([{ kind: "agent.stopped", payload: outcomePayload(outcome) }]);
    }

    let final: Snapshot;
    if (resume?.phase === "grade") final = loadSnapshot(store.blobs, resume.endRoot);
    else if (agentContainer) {
      await agentContainer.stop(); // nothing it started may touch the workspace after it stopped
      final = sealEntries(await agentContainer.copyOut(manifest.workdir, admit()), workdirName);
      storeSnapshot(store.blobs, final as ReturnType<typeof sealEntries>);
    } else final = loadSnapshot(store.blobs, (resume as { restoreRoot: string }).restoreRoot);
    endRoot = final.root;
    const changes = diffSnapshots(initial, final);
    changedPaths = changes.length;
    if (resume?.phase !== "grade") {
      record([{ kind: "end_state.sealed", payload: { root: endRoot, changes } }]);
    }

    const grader = await graderStarting;
    const canaryGrader = await canaryGraderStarting;
    await deps.crash?.("grading", 0, resume !== undefined);
    const graded = await grade({
      task,
      blobs: store.blobs,
      initial,
      final,
      counters: outcome!.counters,
      tests: plan.staged.tests,
      grader,
      canaryGrader,
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
    // What the agent left cannot be sealed: its doing, so its failure.
    const unsealable = error instanceof UnsealableWorkspaceError;
    const reason = error instanceof VerdictError || error instanceof Error
      ? error.message
      : String(error);
    result = trialRecord(
      plan,
      outcome,
      {
        verdict: "fail",
        bucket: infrastructure
          ? "infrastructure_error"
          : unsealable
          ? "agent_failure"
          : "evaluator_error",
        reason: infrastructure || unsealable ? reason : `the harness failed: ${reason}`,
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
      kind: VERDICT_EVENT,
      payload: chainedSummary(result),
    }]);
    store.runs.finishSession(plan.session, result);
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
    success: graded.success && reportedScript(graded.success),
    canary: graded.canary && reportedScript(graded.canary),
  };
}

/** The `agent.stopped` payload: enough to rebuild the outcome on resume. */
function outcomePayload(outcome: AgentOutcome): Record<string, unknown> {
  const { costUsd, ...counters } = outcome.counters;
  return {
    stop_reason: outcome.stopReason,
    detail: outcome.detail ?? null,
    counters: { ...counters, cost_usd: costUsd === null ? null : costUsd.toString() },
    tokens: outcome.tokens,
  };
}

/**
 * Rebuilds an agent's outcome from its `agent.stopped` payload.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { outcomeFromPayload } from "./trial.ts";
 * const outcome = outcomeFromPayload({
 *   stop_reason: "completed", detail: null, tokens: { input: 1, output: 2 },
 *   counters: { steps: 1, toolCalls: 0, compactions: 0, deniedCalls: 0, totalTokens: 3, finished: true, resumed: false, cost_usd: "0" },
 * });
 * assert(outcome.counters.costUsd === 0n);
 * ```
 */
export function outcomeFromPayload(payload: Record<string, unknown>): AgentOutcome {
  const { cost_usd, ...counters } = payload.counters as Record<string, unknown>;
  return {
    stopReason: payload.stop_reason as AgentOutcome["stopReason"],
    detail: (payload.detail as string | null) ?? undefined,
    tokens: payload.tokens as AgentOutcome["tokens"],
    counters: {
      ...(counters as Omit<RunCounters, "costUsd">),
      costUsd: cost_usd === null ? null : BigInt(cost_usd as string),
    },
  };
}

// The scripts' output (timings, dates) differs from run to run; it goes to the results, not the
// hash chain, so the same seed gives the same event hashes. Exit codes are chained.
function gradePayload(graded: Grade): Record<string, unknown> {
  return {
    verdict: graded.verdict,
    bucket: graded.bucket,
    reason: graded.reason,
    checks: graded.checks,
    requirements: graded.requirements,
    success: chainedScript(graded.success),
    canary: chainedScript(graded.canary),
  };
}

/** A script's run as `results.json` reports it. */
function reportedScript(run: ScriptRun): ReportedScript {
  return {
    script: run.script,
    exit_code: run.exitCode,
    timed_out: run.timedOut,
    output: run.output,
  };
}

/** The same, less its output (which may hold timings): what the grading event chains. */
function chainedScript(run: ScriptRun | null): Omit<ReportedScript, "output"> | null {
  if (run === null) return null;
  const { output: _output, ...chained } = reportedScript(run);
  return chained;
}
