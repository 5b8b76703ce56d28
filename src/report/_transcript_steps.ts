/**
 * An installed agent's own transcript (`agent.transcript`) folded into its trajectory: each tool
 * call the agent ran gets its shell command and its result, on the call of the gateway step whose
 * answer asked for it, so an installed agent's trajectory reads as the loop's does.
 *
 * A transcript call finds its gateway call by id (Claude Code's tool-use ids are the ids of the
 * model's answers), else as the next call of the same tool in order (Codex names its items
 * `item_N`, not by the model's call ids). Calls that find none are still shown, in a step of their
 * own after the gateway's; a session recorded without gateway steps shows the whole transcript as
 * steps, a step per model turn (what the agent said and called before its results came back).
 *
 * @module
 */
import type { EVENT, EventPayload } from "../store/event_catalogue.ts";
import type { TranscriptStep } from "../store/events/agent_events.ts";
import { clip } from "./_clip.ts";
import type { TrajectoryCall, TrajectoryStep } from "./trajectory.ts";

type TranscriptCall = Extract<TranscriptStep, { type: "tool_call" }>;
type TranscriptResult = Extract<TranscriptStep, { type: "tool_result" }>;

/** The content of the step that holds transcript calls no gateway call asked for. */
export const UNMATCHED_CALLS =
  "calls from the agent's transcript that no recorded model answer asked for";

/**
 * Adds a transcript to a trajectory's steps: commands and results onto the gateway steps' calls
 * (`steps` is changed in place), and the steps to append after them.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { withTranscript } from "./_transcript_steps.ts";
 * import type { TrajectoryStep } from "./trajectory.ts";
 * const steps: TrajectoryStep[] = [{
 *   step: 1, content: "", usage: { input: 1, cachedInput: 0, output: 1 }, cost_usd: null,
 *   calls: [{ id: "t1", tool: "Bash", arguments: '{"command":"ls"}', by_agent: true }],
 * }];
 * const added = withTranscript(steps, {
 *   agent: "claude-code", duration_ms: null, unread_lines: 0,
 *   steps: [
 *     { type: "tool_call", id: "t1", name: "Bash", command: "ls", input: '{"command":"ls"}' },
 *     { type: "tool_result", id: "t1", output: "a.txt", is_error: false, exit_code: null },
 *   ],
 * });
 * assert.deepEqual(added, []);
 * assert.equal(steps[0].calls[0].command, "ls");
 * assert.equal(steps[0].calls[0].result?.content, "a.txt");
 * ```
 */
export function withTranscript(
  steps: TrajectoryStep[],
  transcript: EventPayload<typeof EVENT.agentTranscript>,
): TrajectoryStep[] {
  const results = new Map<string, TranscriptResult>();
  for (const step of transcript.steps) if (step.type === "tool_result") results.set(step.id, step);
  if (steps.length === 0) return turnSteps(transcript.steps, results);

  const agentCalls = steps.flatMap((step) => step.calls.filter((call) => call.by_agent));
  const matched = new Set<TrajectoryCall>();
  let next = 0;
  const unmatched: TrajectoryCall[] = [];
  for (const step of transcript.steps) {
    if (step.type !== "tool_call") continue;
    const byId = agentCalls.findIndex((call) => !matched.has(call) && call.id === step.id);
    const at = byId >= 0
      ? byId
      : agentCalls.findIndex((call, index) =>
        index >= next && !matched.has(call) && call.tool === step.name
      );
    if (at < 0) {
      unmatched.push(transcriptCall(step, results));
      continue;
    }
    const call = agentCalls[at];
    matched.add(call);
    next = Math.max(next, at + 1);
    if (step.command !== null) call.command = step.command;
    const result = results.get(step.id);
    if (result) call.result = callResult(result);
  }
  if (unmatched.length === 0) return [];
  return [{
    step: Math.max(...steps.map((step) => step.step)) + 1,
    content: UNMATCHED_CALLS,
    usage: { input: 0, cachedInput: 0, output: 0 },
    cost_usd: null,
    calls: unmatched,
  }];
}

/**
 * The whole transcript as steps: a new step at each message or call that follows a result (the
 * agent's next model turn), its content what the agent said in that turn.
 */
function turnSteps(
  transcript: TranscriptStep[],
  results: Map<string, TranscriptResult>,
): TrajectoryStep[] {
  const steps: TrajectoryStep[] = [];
  let said: string[] = [];
  let open = false;
  for (const step of transcript) {
    if (step.type === "tool_result") {
      open = false;
      continue;
    }
    if (!open) {
      said = [];
      steps.push({
        step: steps.length + 1,
        content: "",
        usage: { input: 0, cachedInput: 0, output: 0 },
        cost_usd: null,
        calls: [],
      });
      open = true;
    }
    const current = steps[steps.length - 1];
    if (step.type === "message") {
      said.push(step.text);
      current.content = clip(said.join("\n"));
    } else {
      current.calls.push(transcriptCall(step, results));
    }
  }
  return steps;
}

function transcriptCall(
  call: TranscriptCall,
  results: Map<string, TranscriptResult>,
): TrajectoryCall {
  const result = results.get(call.id);
  return {
    id: call.id,
    tool: call.name,
    arguments: clip(call.input),
    ...(call.command !== null ? { command: call.command } : {}),
    ...(result ? { result: callResult(result) } : {}),
    by_agent: true,
  };
}

function callResult(result: TranscriptResult): NonNullable<TrajectoryCall["result"]> {
  return {
    content: clip(result.output),
    is_error: result.is_error,
    ...(result.exit_code !== null ? { exit_code: result.exit_code } : {}),
  };
}
