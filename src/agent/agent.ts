/**
 * What every agent is: something that works on a task inside the trial's container until it
 * stops, and reports why it stopped and what the harness counted.
 *
 * @module
 */
import type { Rng } from "../core/rng.ts";
import type { RunCounters } from "../store/run_counters.ts";
import type { SandboxContainer } from "../engine/sandbox.ts";
import type { CatalogueEvent } from "../store/event_catalogue.ts";
import type { ProviderFailure, StopReason } from "../store/events/agent_events.ts";
import type { Task } from "../task/task.ts";

// Why an agent stopped is listed once, with the events that record it.
export type { ProviderFailure, StopReason };

/**
 * What an agent gets to work with in its trial: the task, the trial's container with the
 * workspace staged at the task's workdir, the time it has, a seeded random stream and the abort
 * signal. An agent of your own ({@linkcode TrialAgent}) gets this; Verdict's own agents get
 * {@linkcode AgentContext}, which adds the session's record.
 *
 * @example Read the instruction, work in the container
 * ```ts
 * import assert from "node:assert/strict";
 * import type { TrialContext } from "./agent.ts";
 * async function work(context: TrialContext): Promise<number> {
 *   assert(context.task.instruction.length > 0);
 *   const listed = await context.container.exec("ls", {
 *     timeoutMs: context.timeoutMs,
 *     signal: context.signal,
 *   });
 *   return listed.exitCode;
 * }
 * assert.equal(typeof work, "function");
 * ```
 */
export interface TrialContext {
  /** The task. */
  task: Task;
  /** The session (trial) id. */
  session: string;
  /** The trial's container, with the workspace staged at the task's workdir. */
  container: SandboxContainer;
  /** The trial's seeded random stream. */
  rng: Rng;
  /** How long the agent may still work, in ms: the task's `timeout_s`, less what a resumed trial used. */
  timeoutMs: number;
  /** Whether this run of the agent continues an interrupted one. */
  resumed: boolean;
  /** Aborts when the run is interrupted. */
  signal: AbortSignal;
  /**
   * What an installed agent's clock is set to where its image has libfaketime, in ms since the
   * epoch: the run's start (a replay's: the recorded one). Undefined: the container's own clock.
   */
  clockStart?: number;
}

/** What Verdict's own agents get to work with: the trial, and the session's record. */
export interface AgentContext extends TrialContext {
  /** Appends events to the session's log, all in one transaction. */
  record(events: CatalogueEvent[]): void;
  /** Stores text in the content-addressed blob store; returns its sha256. */
  storeBlob(text: string): string;
  /** Seals the workspace as it is now (a checkpoint to restore on resume); returns the root. */
  snapshot?(): Promise<string>;
}

/**
 * How an agent's work ended: why it stopped, what the harness counted, the tokens it used.
 *
 * @example An agent that worked without a model
 * ```ts
 * import assert from "node:assert/strict";
 * import type { AgentOutcome } from "./agent.ts";
 * import { ZERO_COUNTERS } from "../store/run_counters.ts";
 * const outcome: AgentOutcome = {
 *   stopReason: "completed",
 *   counters: { ...ZERO_COUNTERS, finished: true },
 *   tokens: { input: 0, output: 0 },
 * };
 * assert.equal(outcome.counters.steps, 0);
 * ```
 */
export interface AgentOutcome {
  /** Why it stopped. */
  stopReason: StopReason;
  /** What the harness counted. */
  counters: RunCounters;
  /** Tokens used. */
  tokens: { input: number; output: number };
  /** A line of detail for the report, such as an error message. */
  detail?: string;
  /** The model calls its gateway's provider failed, when any did (installed agents). */
  providerFailure?: ProviderFailure;
}

/** One of Verdict's own agents, which record their steps in the session's log. */
export interface Agent {
  /** Its name as given to `--agent`. */
  readonly name: string;
  /** Works on the task until it stops. */
  run(context: AgentContext): Promise<AgentOutcome>;
}

/**
 * An agent: something that works on a task inside the trial's container until it stops, and
 * reports why. Write one of your own and run it with `runEval`; its name is recorded as the run's
 * agent (and is part of the run id). Every {@linkcode Agent} is one too.
 *
 * @example An agent that appends a line to the workspace's README
 * ```ts
 * import assert from "node:assert/strict";
 * import type { TrialAgent } from "./agent.ts";
 * import { ZERO_COUNTERS } from "../store/run_counters.ts";
 * const agent: TrialAgent = {
 *   name: "readme-writer",
 *   async run({ container, timeoutMs, signal }) {
 *     const { exitCode } = await container.exec("echo done >> README.md", { timeoutMs, signal });
 *     return {
 *       stopReason: exitCode === 0 ? "completed" : "error",
 *       counters: { ...ZERO_COUNTERS, finished: exitCode === 0 },
 *       tokens: { input: 0, output: 0 },
 *     };
 *   },
 * };
 * assert.equal(agent.name, "readme-writer");
 * ```
 */
export interface TrialAgent {
  /** Its name, recorded as the run's agent. */
  readonly name: string;
  /** Works on the task until it stops. */
  run(context: TrialContext): Promise<AgentOutcome>;
}
