/**
 * Re-driving a recorded session: the loop runs again from the start, and while the record lasts
 * the model's answers and the tools' results come from it (each request's fingerprint checked
 * against the recorded one), nothing already recorded is written twice, and nothing already done
 * is done again. Resume uses it to continue a session live from where its record ends; replay uses
 * it to check that a session reproduces.
 *
 * @module
 */
import type { PendingCall, RecordedResult } from "../../agent/loop_agent.ts";
import { RequestFingerprinter } from "../../model/fingerprint.ts";
import type { Model, ModelRequest, ModelResponse } from "../../model/model.ts";
import {
  type CatalogueEvent,
  EVENT,
  type EventKind,
  type EventPayload,
  readEvent,
} from "../../store/event_catalogue.ts";
import type { StoredEvent } from "../../store/event_log.ts";
import type { ToolResult } from "../../tools/tool.ts";

/** The events the loop writes for every step; the others (snapshots, retries) are side records. */
const STRUCTURAL_KINDS: ReadonlySet<string> = new Set<EventKind>([
  EVENT.loopStarted,
  EVENT.contextCompacted,
  EVENT.modelRequest,
  EVENT.modelResponse,
  EVENT.policyDecision,
  EVENT.toolIntent,
  EVENT.toolResult,
  EVENT.loopStopped,
]);

/** The kinds that mark a trial's own steps rather than its agent's: left out of the agent's part. */
const TRIAL_KINDS: ReadonlySet<string> = new Set<EventKind>([
  EVENT.trialStarted,
  EVENT.trialResumed,
  EVENT.workspaceStaged,
  EVENT.agentOracle,
  EVENT.agentNop,
  EVENT.trialVerdict,
]);

/** What the model is told about a call the harness started and never saw finish. */
const OUTCOME_UNKNOWN =
  "outcome unknown: the harness stopped while this call was running, so whether it took effect is unknown; check the state before relying on it";

/** The re-driven session did something other than what its record says. */
export class SessionDivergence extends Error {
  /** The step where it diverged. */
  readonly step: number;
  /** The request the re-driven loop made, when the divergence is a request. */
  readonly request?: ModelRequest;

  /** Makes the error. */
  constructor(step: number, message: string, request?: ModelRequest) {
    super(message);
    this.name = "SessionDivergence";
    this.step = step;
    this.request = request;
  }
}

/** Hooks that make the loop follow a record. */
export interface SessionDriver {
  /** The events of the agent phase, as recorded. */
  readonly recorded: StoredEvent[];
  /** The number of model steps with a recorded response. */
  readonly recordedSteps: number;
  /** Wraps the model: recorded answers first (fingerprints checked), then `live`, if any. */
  wrapModel(live: Model | null): Model;
  /** Answers tool calls from the record; runs what the record does not cover (or refuses, without `live`). */
  runTool(
    live: boolean,
  ): (call: PendingCall, run: () => Promise<ToolResult>) => Promise<RecordedResult>;
  /** Runs each tool call for real and checks its result against the record (replay `--live`). */
  compareTool(call: PendingCall, run: () => Promise<ToolResult>): Promise<RecordedResult>;
  /** Wraps the session's appender so events already in the log are not written again. */
  record(append: (events: CatalogueEvent[]) => void): (events: CatalogueEvent[]) => void;
}

/**
 * A driver over a session's events (all of them, in order).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { sessionDriver } from "./session_driver.ts";
 * const driver = sessionDriver([]);
 * assert(driver.recordedSteps === 0);
 * ```
 */
export function sessionDriver(events: readonly StoredEvent[]): SessionDriver {
  const record = indexRecord(agentEvents(events));
  return {
    recorded: record.events,
    recordedSteps: record.responses.size,
    wrapModel: (live) => followingModel(record, live),
    runTool: (live) => (call, run) => toolFromRecord(record, live, call, run),
    compareTool: (call, run) => compareWithRecord(record, call, run),
    record: (append) => skippingRecorded(record.events, append),
  };
}

/** What a session's agent events hold, indexed the way the driver looks it up. */
interface IndexedRecord {
  /** The agent's events, as recorded. */
  events: StoredEvent[];
  /** Each step's request fingerprint. */
  fingerprints: Map<number, string>;
  /** Each step's response. */
  responses: Map<number, ModelResponse>;
  /** Each tool call's result, by idempotency key. */
  results: Map<string, EventPayload<typeof EVENT.toolResult>>;
  /** The idempotency keys of tool calls that were started. */
  intents: Set<string>;
}

function indexRecord(events: StoredEvent[]): IndexedRecord {
  const record: IndexedRecord = {
    events,
    fingerprints: new Map(),
    responses: new Map(),
    results: new Map(),
    intents: new Set(),
  };
  for (const stored of events) {
    const event = readEvent(stored);
    if (event?.kind === EVENT.modelRequest) {
      record.fingerprints.set(event.payload.step, event.payload.fingerprint);
    }
    if (event?.kind === EVENT.modelResponse) {
      record.responses.set(event.payload.step, event.payload.response);
    }
    if (event?.kind === EVENT.toolIntent) record.intents.add(event.payload.idempotency_key);
    if (event?.kind === EVENT.toolResult && event.payload.idempotency_key !== undefined) {
      record.results.set(event.payload.idempotency_key, event.payload);
    }
  }
  return record;
}

// The model of a re-driven session: recorded answers first (fingerprints checked), then `live`.
function followingModel(record: IndexedRecord, live: Model | null): Model {
  let step = 0;
  const fingerprinter = new RequestFingerprinter();
  return {
    spec: live?.spec ?? "replay",
    remote: live?.remote ?? false,
    async complete(request, options) {
      step++;
      const expected = record.fingerprints.get(step);
      if (expected !== undefined && fingerprinter.fingerprint(request).fingerprint !== expected) {
        throw new SessionDivergence(
          step,
          `the request of step ${step} differs from the recorded one`,
          request,
        );
      }
      const answer = record.responses.get(step);
      if (answer !== undefined) {
        // A local model (scripted) is asked too, so its own state follows the record; a
        // remote one is not called again for an answer already paid for.
        if (live && !live.remote) await live.complete(request, options);
        return answer;
      }
      if (live === null) {
        throw new SessionDivergence(
          step,
          `the session asks for step ${step}, but the record ends after step ${step - 1}`,
        );
      }
      return live.complete(request, options);
    },
  };
}

// A tool call answered from the record; run live past it (a started, non-idempotent call that
// never finished is answered "outcome unknown" instead of being run twice).
function toolFromRecord(
  record: IndexedRecord,
  live: boolean,
  call: PendingCall,
  run: () => Promise<ToolResult>,
): Promise<RecordedResult> {
  const result = record.results.get(call.key);
  if (result !== undefined) {
    return Promise.resolve({
      content: result.content,
      isError: result.is_error,
      ...(result.finish ? { finish: true } : {}),
      cached: true,
    });
  }
  if (!live) return Promise.reject(notRecorded(call));
  if (record.intents.has(call.key) && !call.tool.idempotent) {
    return Promise.resolve({ content: OUTCOME_UNKNOWN, isError: true, outcome_unknown: true });
  }
  return run();
}

// A tool call run for real, its result held to the recorded one.
async function compareWithRecord(
  record: IndexedRecord,
  call: PendingCall,
  run: () => Promise<ToolResult>,
): Promise<RecordedResult> {
  const recorded = record.results.get(call.key);
  if (recorded === undefined) throw notRecorded(call);
  const result = await run();
  const fields = [
    ["content", result.content, recorded.content],
    ["is_error", result.isError, recorded.is_error],
  ] as const;
  for (const [field, actual, expected] of fields) {
    if (actual !== expected) {
      throw new SessionDivergence(
        call.step,
        `the ${call.tool.schema.name} call ${recorded.call_id} returned a different ${field}:\n` +
          `  expected: ${JSON.stringify(expected)}\n  actual:   ${JSON.stringify(actual)}`,
      );
    }
  }
  return result;
}

function notRecorded(call: PendingCall): SessionDivergence {
  return new SessionDivergence(
    call.step,
    `the session calls ${call.tool.schema.name} (key ${call.key}), which the record does not hold`,
  );
}

// The session's appender, leaving out the structural events the log already holds (in order).
function skippingRecorded(
  recorded: StoredEvent[],
  append: (events: CatalogueEvent[]) => void,
): (events: CatalogueEvent[]) => void {
  const structural = recorded.filter((event) => STRUCTURAL_KINDS.has(event.kind));
  let index = 0;
  return (batch) => {
    const fresh: CatalogueEvent[] = [];
    for (const event of batch) {
      if (index < structural.length && STRUCTURAL_KINDS.has(event.kind)) {
        if (structural[index].kind !== event.kind) {
          const step = "step" in event.payload ? event.payload.step : 0;
          throw new SessionDivergence(
            step,
            `the re-driven session records ${event.kind} where the log has ${
              structural[index].kind
            } (event ${structural[index].seq})`,
          );
        }
        index++;
        continue;
      }
      fresh.push(event);
    }
    if (fresh.length > 0) append(fresh);
  };
}

/** The agent's part of a session's log: after staging, before `agent.stopped`, markers left out. */
export function agentEvents(events: readonly StoredEvent[]): StoredEvent[] {
  const stopped = events.findIndex((event) => event.kind === EVENT.agentStopped);
  const end = stopped === -1 ? events.length : stopped;
  return events.slice(0, end).filter((event) => !TRIAL_KINDS.has(event.kind));
}
