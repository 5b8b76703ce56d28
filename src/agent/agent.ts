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
import type { StopReason } from "../store/events/agent_events.ts";
import type { Task } from "../task/task.ts";

// Why an agent stopped is listed once, with the events that record it.
export type { StopReason };

/** What an agent gets to work with. */
export interface AgentContext {
  /** The task. */
  task: Task;
  /** The session (trial) id. */
  session: string;
  /** The trial's container, with the workspace staged at the task's workdir. */
  container: SandboxContainer;
  /** Appends events to the session's log, all in one transaction. */
  record(events: CatalogueEvent[]): void;
  /** Stores text in the content-addressed blob store; returns its sha256. */
  storeBlob(text: string): string;
  /** Seals the workspace as it is now (a checkpoint to restore on resume); returns the root. */
  snapshot?(): Promise<string>;
  /** The trial's seeded random stream. */
  rng: Rng;
  /** How long the agent may still work, in ms: the task's `timeout_s`, less what a resumed trial used. */
  timeoutMs: number;
  /** Whether this run of the agent continues an interrupted one. */
  resumed: boolean;
  /** Aborts when the run is interrupted. */
  signal: AbortSignal;
}

/** How an agent's work ended. */
export interface AgentOutcome {
  /** Why it stopped. */
  stopReason: StopReason;
  /** What the harness counted. */
  counters: RunCounters;
  /** Tokens used. */
  tokens: { input: number; output: number };
  /** A line of detail for the report, such as an error message. */
  detail?: string;
}

/** An agent. */
export interface Agent {
  /** Its name as given to `--agent`. */
  readonly name: string;
  /** Works on the task until it stops. */
  run(context: AgentContext): Promise<AgentOutcome>;
}
