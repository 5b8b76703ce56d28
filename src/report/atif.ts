/**
 * A recorded session as a trajectory in Harbor's Agent Trajectory Interchange Format (ATIF,
 * `ATIF-v1.7`, RFC 0001 of github.com/harbor-framework/harbor), for `verdict show SESSION
 * --format atif`. It is built from the same reading of the record as `show`
 * ({@linkcode readTrajectory}) plus the events' own times:
 *
 * - the task's instruction, when the agent was told it through the loop, is a `user` step;
 * - each model call (the loop's turns, an installed agent's calls through the gateway) is an
 *   `agent` step with what the model said, its tool calls (arguments parsed back into an object),
 *   their results as the step's observation, and its tokens and cost as metrics;
 * - calls read only from an installed agent's own transcript are `agent` steps without metrics;
 * - the oracle, nop and `cmd:` agents' runs are `agent` steps with `llm_call_count: 0` (a
 *   deterministic dispatch), their output as the observation.
 *
 * Timestamps are the recorded events' append times (never the clock now); a step with no event
 * of its own (read from a transcript) has none. What ATIF has no field for (policy decisions,
 * compactions, the verdict, the changed paths) goes into `extra`; diffs and the system prompt
 * are left out.
 *
 * @module
 */
import { VERSION } from "../core/version.ts";
import { totalInput } from "../model/model.ts";
import { EVENT, first, last, readEvent } from "../store/event_catalogue.ts";
import type { StoredEvent } from "../store/event_log.ts";
import type { Store } from "../store/store.ts";
import { clip } from "./_clip.ts";
import { readTrajectory, type Trajectory, type TrajectoryCall } from "./trajectory.ts";

/** The ATIF version written. */
export const ATIF_SCHEMA_VERSION = "ATIF-v1.7";

/** A tool call of an ATIF step. */
export interface AtifToolCall {
  /** The call's id. */
  tool_call_id: string;
  /** The tool. */
  function_name: string;
  /** Its arguments. */
  arguments: Record<string, unknown>;
  /** What ATIF has no field for. */
  extra?: Record<string, unknown>;
}

/** One result of an ATIF step's observation. */
export interface AtifObservationResult {
  /** The tool call it answers; absent for an output no tool call asked for. */
  source_call_id?: string;
  /** The output. */
  content?: string;
  /** What ATIF has no field for. */
  extra?: Record<string, unknown>;
}

/** An ATIF step's metrics. */
export interface AtifMetrics {
  /** Input tokens, cached ones included. */
  prompt_tokens: number;
  /** Output tokens. */
  completion_tokens: number;
  /** Input tokens read from a cache. */
  cached_tokens: number;
  /** The call's cost in US dollars, when priced. */
  cost_usd?: number;
  /** Cache writes, when the provider counted them. */
  extra?: Record<string, unknown>;
}

/** One ATIF step. */
export interface AtifStep {
  /** From 1, in order. */
  step_id: number;
  /** ISO 8601, from the recorded event. */
  timestamp?: string;
  /** Who it came from. */
  source: "user" | "agent" | "system";
  /** What was said. */
  message: string;
  /** The agent's tool calls. */
  tool_calls?: AtifToolCall[];
  /** What came back. */
  observation?: { results: AtifObservationResult[] };
  /** Tokens and cost of a model call. */
  metrics?: AtifMetrics;
  /** How many model calls the step is: 1, or 0 for a deterministic dispatch. */
  llm_call_count?: number;
  /** What ATIF has no field for. */
  extra?: Record<string, unknown>;
}

/** An ATIF trajectory. */
export interface AtifTrajectory {
  /** {@linkcode ATIF_SCHEMA_VERSION}. */
  schema_version: typeof ATIF_SCHEMA_VERSION;
  /** The session id. */
  session_id: string;
  /** The agent. */
  agent: {
    name: string;
    version: string;
    model_name?: string;
    extra?: Record<string, unknown>;
  };
  /** The steps, at least one. */
  steps: AtifStep[];
  /** Where it came from. */
  notes: string;
  /** Totals. */
  final_metrics: {
    total_prompt_tokens: number;
    total_completion_tokens: number;
    total_cached_tokens: number;
    total_cost_usd?: number;
    total_steps: number;
  };
  /** The task, how the agent stopped, the verdict and the changed paths. */
  extra: Record<string, unknown>;
}

/**
 * Reads a session as an ATIF trajectory.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openStore } from "../store/store.ts";
 * import { readAtif } from "./atif.ts";
 * const store = openStore(":memory:");
 * store.runs.create({ id: "r", config: {}, createdAt: 0 });
 * store.runs.createSession({ id: "s", run: "r", task: "t", repeat: 0 });
 * assert.equal(readAtif(store, store.runs.session("s")!).schema_version, "ATIF-v1.7");
 * ```
 */
export function readAtif(
  store: Store,
  session: { id: string; task: string; repeat: number },
): AtifTrajectory {
  return atifTrajectory(readTrajectory(store, session), store.events.read(session.id));
}

/**
 * A trajectory as ATIF, `events` being the session's log it was read from.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { atifTrajectory } from "./atif.ts";
 * const atif = atifTrajectory({
 *   session: "s", task: "t", repeat: 0, instruction: "Fix it.", steps: [], stop: null,
 *   verdict: null, grading: null, resumed: false, changes: [],
 * }, []);
 * assert.deepEqual(atif.steps, [{ step_id: 1, source: "user", message: "Fix it." }]);
 * ```
 */
export function atifTrajectory(
  trajectory: Trajectory,
  events: readonly StoredEvent[],
): AtifTrajectory {
  const steps: Omit<AtifStep, "step_id">[] = [];
  if (trajectory.instruction !== null) {
    steps.push({
      ...timestamp(first(events, EVENT.modelRequest)),
      source: "user",
      message: trajectory.instruction,
    });
  }
  // readTrajectory makes a step of each answer, in order; steps after them come from a transcript.
  const answers = events.filter((event) =>
    event.kind === EVENT.modelResponse || event.kind === EVENT.gatewayAnswer
  );
  trajectory.steps.forEach((step, index) => {
    const answer = answers[index];
    const calls = step.calls.map(toolCall);
    const results = step.calls.flatMap(observationResult);
    steps.push({
      ...timestamp(answer),
      source: "agent",
      message: step.content,
      ...(calls.length > 0 ? { tool_calls: calls } : {}),
      ...(results.length > 0 ? { observation: { results } } : {}),
      ...(answer
        ? {
          metrics: {
            prompt_tokens: totalInput(step.usage),
            completion_tokens: step.usage.output,
            cached_tokens: step.usage.cachedInput,
            ...(step.cost_usd !== null ? { cost_usd: Number(step.cost_usd) } : {}),
            ...(step.usage.cacheWriteInput
              ? { extra: { cache_write_tokens: step.usage.cacheWriteInput } }
              : {}),
          },
          llm_call_count: 1,
        }
        : {}),
      extra: {
        verdict_step: step.step,
        ...(answer ? {} : { from_transcript: true }),
        ...(step.compaction ? { compaction: step.compaction } : {}),
      },
    });
  });
  const dispatch = dispatchStep(events);
  if (dispatch) steps.push(dispatch);
  if (steps.length === 0) {
    steps.push({ source: "system", message: "no step of the agent was recorded" });
  }
  const numbered = steps.map((step, index) => ({ step_id: index + 1, ...step }));
  return {
    schema_version: ATIF_SCHEMA_VERSION,
    session_id: trajectory.session,
    agent: agentOf(events),
    steps: numbered,
    notes: `Exported by Verdict ${VERSION} from its record of session ${trajectory.session} ` +
      `(task ${trajectory.task}, repeat ${trajectory.repeat}). Policy decisions, compactions, ` +
      `the verdict and the changed paths are under extra; diffs and the system prompt are not ` +
      `included: see 'verdict show ${trajectory.session}'.`,
    final_metrics: finalMetrics(numbered, events),
    extra: {
      task: trajectory.task,
      repeat: trajectory.repeat,
      resumed: trajectory.resumed,
      stop: trajectory.stop,
      verdict: trajectory.verdict,
      changed_paths: trajectory.changes.map(({ path, change }) => ({ path, change })),
    },
  };
}

function timestamp(event: { at: number | null } | undefined): { timestamp?: string } {
  return event?.at == null ? {} : { timestamp: new Date(event.at).toISOString() };
}

function toolCall(call: TrajectoryCall): AtifToolCall {
  const parsed = parsedArguments(call.arguments);
  const extra = {
    ...(parsed ? {} : { raw_arguments: call.arguments }),
    ...(call.command !== undefined ? { command: call.command } : {}),
    ...(call.by_agent ? { by_agent: true } : {}),
  };
  return {
    tool_call_id: call.id,
    function_name: call.tool,
    arguments: parsed ?? {},
    ...(Object.keys(extra).length > 0 ? { extra } : {}),
  };
}

function parsedArguments(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? value as Record<string, unknown>
      : undefined;
  } catch {
    return undefined;
  }
}

function observationResult(call: TrajectoryCall): AtifObservationResult[] {
  if (!call.result && !call.decision) return [];
  const { content, ...about } = call.result ?? {};
  const extra = { ...about, ...(call.decision ? { policy: call.decision } : {}) };
  return [{
    source_call_id: call.id,
    ...(content !== undefined ? { content } : {}),
    ...(Object.keys(extra).length > 0 ? { extra } : {}),
  }];
}

/** The oracle's, nop's or a `cmd:` agent's run: a step with no model call. */
function dispatchStep(events: readonly StoredEvent[]): Omit<AtifStep, "step_id"> | undefined {
  const stored = events.findLast((event) =>
    event.kind === EVENT.agentOracle || event.kind === EVENT.agentCmd ||
    event.kind === EVENT.agentNop
  );
  const event = stored && readEvent(stored);
  if (!event) return undefined;
  const base = { ...timestamp(stored), source: "agent" as const, llm_call_count: 0 };
  switch (event.kind) {
    case EVENT.agentNop:
      return { ...base, message: "nop: did nothing" };
    case EVENT.agentOracle:
    case EVENT.agentCmd: {
      const { exit_code, timed_out, stdout, stderr } = event.payload;
      const what = event.kind === EVENT.agentOracle
        ? "oracle: applied the reference solution"
        : `cmd: ran ${event.payload.command}`;
      const output = `${stdout}${stderr}`;
      return {
        ...base,
        message: `${what} (${timed_out ? "timed out" : `exit ${exit_code}`})`,
        ...(output !== "" ? { observation: { results: [{ content: clip(output) }] } } : {}),
        extra: { exit_code, timed_out },
      };
    }
  }
  return undefined;
}

function agentOf(events: readonly StoredEvent[]): AtifTrajectory["agent"] {
  const name = first(events, EVENT.trialStarted)?.payload.agent ?? "unknown";
  const model = last(events, EVENT.loopStarted)?.payload.model ??
    first(events, EVENT.gatewayCall)?.payload.model;
  const modelName = model !== undefined ? { model_name: model } : {};
  if (name.startsWith("cmd:")) {
    return { name: "cmd", version: VERSION, ...modelName, extra: { command: name.slice(4) } };
  }
  const at = name.lastIndexOf("@");
  return at > 0
    ? { name: name.slice(0, at), version: name.slice(at + 1), ...modelName }
    : { name, version: VERSION, ...modelName };
}

function finalMetrics(
  steps: readonly AtifStep[],
  events: readonly StoredEvent[],
): AtifTrajectory["final_metrics"] {
  const metered = steps.flatMap((step) => step.metrics ? [step.metrics] : []);
  const sum = (of: (metrics: AtifMetrics) => number) =>
    metered.reduce((total, metrics) => total + of(metrics), 0);
  const recordedCost = last(events, EVENT.trialVerdict)?.payload.cost_usd;
  const cost = recordedCost !== undefined
    ? recordedCost
    : metered.every((metrics) => metrics.cost_usd !== undefined)
    ? sum((metrics) => metrics.cost_usd!)
    : null;
  return {
    total_prompt_tokens: sum((metrics) => metrics.prompt_tokens),
    total_completion_tokens: sum((metrics) => metrics.completion_tokens),
    total_cached_tokens: sum((metrics) => metrics.cached_tokens),
    ...(cost !== null ? { total_cost_usd: cost } : {}),
    total_steps: steps.length,
  };
}
