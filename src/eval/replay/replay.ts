/**
 * `verdict replay SESSION|RUN`: re-drive recorded sessions with a model that answers a request
 * only if its fingerprint equals the recorded one, and tool results taken from the record (no
 * Docker needed); with `live`, the tools run again in a fresh container and their results must
 * equal the recorded ones. The first difference is reported as the step, the JSON path, and the
 * expected and actual values.
 *
 * @module
 */
import { EVENT, first, has } from "../../store/event_catalogue.ts";
import { sha256Hex } from "../../core/hash.ts";
import type { Difference } from "../../core/first_difference.ts";
import { SplitMix64 } from "../../core/rng.ts";
import { AGENT_USER, type Sandbox, type SandboxContainer } from "../../engine/sandbox.ts";
import type { StoredEvent } from "../../store/event_log.ts";
import type { RunRecord, SessionRecord } from "../../store/run_table.ts";
import type { Store } from "../../store/store.ts";
import { loadTaskFolder } from "../../task/load_suite.ts";
import { readyHarborImages } from "../setup/harbor_images.ts";
import type { Task } from "../../task/task.ts";
import type { Clock } from "../../core/clock.ts";
import { agentKind } from "../setup/agent_registry.ts";
import type { LoopSetup } from "../setup/loop_choices.ts";
import { replayInstalled } from "./replay_installed.ts";
import { type RunConfig, runConfig } from "../setup/run_identity.ts";
import { requestDifference } from "../trial/request_difference.ts";
import { SessionDivergence, type SessionDriver, sessionDriver } from "../trial/session_driver.ts";
import type { AgentOutcome } from "../../agent/agent.ts";
import type { StagedTask } from "../trial/trial_plan.ts";
import { stageTask } from "../trial/staged_task.ts";

/** How one session replayed. */
export interface SessionReplay {
  /** The session. */
  session: string;
  /** Its task. */
  task: string;
  /** Its repeat. */
  repeat: number;
  /**
   * `identical`, `diverged`, `unfinished` (no verdict yet: resume it first), or `skipped` (not a
   * loop session, or never reached the agent).
   */
  status: "identical" | "diverged" | "unfinished" | "skipped";
  /** Model steps re-driven. */
  steps: number;
  /** For `diverged`: the step where it did. */
  step?: number;
  /** For `diverged`: why, in words. */
  reason?: string;
  /** For `diverged` on a request: the first differing field. */
  difference?: Difference;
  /** For `skipped` and `unfinished`: why. */
  note?: string;
}

/** What replay needs. */
export interface ReplayDeps {
  /** The state database. */
  store: Store;
  /** Builds the loop agent as recorded; called once per task (see {@linkcode replayRun}). */
  loopSetup(config: RunConfig, task: Task): Promise<LoopSetup>;
  /** The container engine: for `live`, and for an installed agent's sessions. */
  sandbox?: Sandbox;
  /** The clock (an installed agent's replayed trial runs on it). */
  clock: Clock;
  /** Run the tools again and compare their results. */
  live: boolean;
  /** The state folder (an installed agent's kit is found in it). */
  home?: string;
}

/**
 * Replays sessions of one run, as many at once as the run ran trials at once, reported in order;
 * each task is loaded, staged and set up once.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * // See tests/eval/replay/replay_test.ts: replay needs a recorded run.
 * import { replayRun } from "./replay.ts";
 * assert(typeof replayRun === "function");
 * ```
 */
export async function replayRun(
  run: RunRecord,
  sessions: readonly SessionRecord[],
  deps: ReplayDeps,
): Promise<SessionReplay[]> {
  const config = runConfig(run);
  const prepared = new Map<string, Promise<PreparedTask>>();
  const prepare = (dir: string) => {
    let task = prepared.get(dir);
    if (task === undefined) prepared.set(dir, task = prepareTask(dir, config, deps));
    return task;
  };
  // As many sessions at once as the run ran trials at once (an installed agent's replay is a trial
  // of its own), reported in the sessions' order.
  // A failure stops the sessions not yet begun; those under way finish before it is thrown.
  const reports: SessionReplay[] = new Array(sessions.length);
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (!failed && next < sessions.length) {
      const index = next++;
      try {
        reports[index] = await replaySession(run, config, sessions[index], deps, prepare);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  const workers = Math.max(1, Math.min(config.concurrency, sessions.length));
  const settled = await Promise.allSettled(Array.from({ length: workers }, worker));
  const failure = settled.find((result) => result.status === "rejected");
  if (failure) throw failure.reason;
  return reports;
}

interface PreparedTask {
  task: Task;
  setup: LoopSetup;
  /** The staged workspace, for `live`. */
  staged?: StagedTask;
}

async function prepareTask(
  dir: string,
  config: RunConfig,
  deps: ReplayDeps,
): Promise<PreparedTask> {
  const loaded = await loadTaskFolder(dir);
  // A Harbor task's workdir is its image's WORKDIR (the agent was told it).
  const task = deps.sandbox ? (await readyHarborImages([loaded], deps.sandbox))[0].task : loaded;
  return {
    task,
    setup: await deps.loopSetup(config, task),
    staged: deps.live ? await stageTask(task) : undefined,
  };
}

async function replaySession(
  run: RunRecord,
  config: RunConfig,
  session: SessionRecord,
  deps: ReplayDeps,
  prepare: (dir: string) => Promise<PreparedTask>,
): Promise<SessionReplay> {
  const base = { session: session.id, task: session.task, repeat: session.repeat, steps: 0 };
  if (session.status !== "finished") {
    return {
      ...base,
      status: "unfinished",
      note: `it has no verdict yet: run 'verdict resume ${run.id}', then replay it`,
    };
  }
  const events = deps.store.events.read(session.id);
  if (!config.agent_needs.model) {
    return { ...base, status: "skipped", note: `the ${config.agent} agent has no model to replay` };
  }
  const dir: string | undefined = config.task_dirs[session.task];
  if (config.agent_needs.gateway && dir !== undefined) {
    return await replayInstalledSession(run, config, session, events, deps, dir, base);
  }
  if (!has(events, EVENT.loopStarted)) {
    return { ...base, status: "skipped", note: "the session never reached the agent" };
  }
  if (dir === undefined) {
    return { ...base, status: "skipped", note: "the run does not record its task folders" };
  }
  return await replayLoopSession(session, events, deps, await prepare(dir), base);
}

type ReplayBase = Pick<SessionReplay, "session" | "task" | "repeat" | "steps">;

// A loop session re-driven by its record: identical, or where it diverged.
async function replayLoopSession(
  session: SessionRecord,
  events: StoredEvent[],
  deps: ReplayDeps,
  { task, setup, staged }: PreparedTask,
  base: ReplayBase,
): Promise<SessionReplay> {
  const driver = sessionDriver(events);
  let container: SandboxContainer | undefined;
  try {
    if (staged) container = await liveContainer(deps.sandbox!, staged, session.id);
    const outcome = await setup.replaying(driver, deps.live).run({
      task,
      session: session.id,
      container: container as SandboxContainer,
      record: () => {}, // a replay writes nothing
      storeBlob: (text) => sha256Hex(text), // the parts are in the store already, or differ
      rng: new SplitMix64(0),
      timeoutMs: task.manifest.limits.timeout_s * 1000,
      resumed: false,
      signal: new AbortController().signal,
    });
    return stoppedAsRecorded(base, outcome, driver);
  } catch (error) {
    if (!(error instanceof SessionDivergence)) throw error;
    const difference = error.request
      ? requestDifference(deps.store, events, error.step, error.request)
      : undefined;
    return {
      ...base,
      steps: error.step - 1,
      status: "diverged",
      step: error.step,
      reason: error.message,
      difference,
    };
  } finally {
    await container?.remove().catch(() => undefined);
  }
}

// A container with the staged workspace, for a replay whose tools run again (`--live`).
async function liveContainer(
  sandbox: Sandbox,
  staged: StagedTask,
  session: string,
): Promise<SandboxContainer> {
  const { manifest } = staged.task;
  const container = await sandbox.start({
    image: manifest.image,
    workdir: manifest.workdir,
    network: manifest.network,
    labels: { "verdict.replay": session },
    user: AGENT_USER,
    channel: true,
  });
  await container.copyIn(staged.tar, "/");
  return container;
}

// Identical when the replay took the recorded steps and stopped for the recorded reason.
function stoppedAsRecorded(
  base: ReplayBase,
  outcome: AgentOutcome,
  driver: SessionDriver,
): SessionReplay {
  const recordedStop = first(driver.recorded, EVENT.loopStopped);
  const steps = outcome.counters.steps;
  if (
    steps === driver.recordedSteps &&
    (!recordedStop || recordedStop.payload.stop_reason === outcome.stopReason)
  ) return { ...base, steps, status: "identical" };
  return {
    ...base,
    steps,
    status: "diverged",
    step: steps,
    reason: `the replay stopped at step ${steps} (${outcome.stopReason}), the record ` +
      `${
        recordedStop
          ? `stopped at step ${driver.recordedSteps} (${recordedStop.payload.stop_reason})`
          : `goes on to step ${driver.recordedSteps}`
      }`,
  };
}

/** An installed agent's session: run again against its record (see `replay_installed.ts`). */
async function replayInstalledSession(
  run: RunRecord,
  config: RunConfig,
  session: SessionRecord,
  events: StoredEvent[],
  deps: ReplayDeps,
  dir: string,
  base: Pick<SessionReplay, "session" | "task" | "repeat" | "steps">,
): Promise<SessionReplay> {
  if (deps.sandbox === undefined) {
    return { ...base, status: "skipped", note: "an installed agent is replayed in a container" };
  }
  const [{ task }] = await readyHarborImages([await loadTaskFolder(dir)], deps.sandbox);
  const setup = await deps.loopSetup(config, task);
  const built = await agentKind(config.agent, { agentFiles: config.agent_files, home: deps.home })
    .build(() => Promise.resolve(setup));
  const outcome = await replayInstalled({
    run,
    seed: config.seed,
    session,
    events,
    staged: await stageTask(task, config.settings?.policy),
    agent: built.agent,
    price: setup.price,
    sandbox: deps.sandbox,
    clock: deps.clock,
  });
  if (outcome.divergence) {
    return {
      ...base,
      steps: outcome.calls,
      status: "diverged",
      step: outcome.divergence.call,
      reason: outcome.divergence.reason,
    };
  }
  return { ...base, steps: outcome.calls, status: "identical" };
}
