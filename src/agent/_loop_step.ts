/**
 * One step of the loop agent, as named steps: check the limits, fit the request into its
 * budgets, ask the model, then either end on an answer without a tool call or judge and run each
 * tool call (each result a checkpoint) and end when the agent called `finish`.
 *
 * @module
 */
import type { ModelRequest, ModelResponse } from "../model/model.ts";
import type { ToolResult } from "../tools/tool.ts";
import { askModel } from "./_loop_model.ts";
import { limitReached, nextRequest } from "./_loop_request.ts";
import { failedCall, type LoopRun, Stop } from "./_loop_run.ts";
import { runToolCall } from "./_loop_tool_call.ts";

/**
 * Takes step `step` (from 1); returns why the loop stops, or nothing to take the next step.
 *
 * @example
 * ```ts ignore
 * for (let step = 1;; step++) {
 *   const stop = await takeStep(run, step);
 *   if (stop) return stopLoop(run, stop);
 * }
 * ```
 */
export async function takeStep(run: LoopRun, step: number): Promise<Stop | undefined> {
  const limit = limitReached(run, step);
  if (limit) return limit;
  const request = nextRequest(run, step);
  if (request instanceof Stop) return request;
  const response = await askModel(run, step, request);
  if (response instanceof Stop) return response;
  if (response.toolCalls.length === 0) return answeredWithoutCall(run, request, response);
  return await runToolCalls(run, step, response);
}

/** Why the loop stops on an answer with no tool call: refused, cut off, or done. */
function answeredWithoutCall(run: LoopRun, request: ModelRequest, response: ModelResponse): Stop {
  if (response.finish === "refusal") return new Stop("refused", firstLine(response.content));
  if (response.finish === "length" && request.maxOutputTokens < run.outputTokens) {
    return new Stop(
      "budget",
      `the model's answer was cut at ${request.maxOutputTokens} tokens, all the budget had ` +
        `left, without a tool call`,
    );
  }
  if (response.finish === "length") {
    const limit = run.setup.options.maxOutputTokens === undefined
      ? "context.reserve_output_tokens"
      : "--max-output-tokens";
    return new Stop(
      "truncated",
      `the model's answer was cut at its output limit (${run.outputTokens} tokens, ${limit}) ` +
        `without a tool call`,
    );
  }
  run.counters.finished = true;
  return new Stop("completed", "the model answered without calling a tool");
}

/**
 * Adds the answer to the conversation, then runs its tool calls in order, each result added
 * after it; stops when the agent called `finish` (after the last call), or when a call was
 * still running at the deadline.
 */
async function runToolCalls(
  run: LoopRun,
  step: number,
  response: ModelResponse,
): Promise<Stop | undefined> {
  run.messages = [...run.messages, {
    role: "assistant",
    content: response.content,
    toolCalls: response.toolCalls,
  }];
  let finished = false;
  for (const [index, call] of response.toolCalls.entries()) {
    run.counters.toolCalls++;
    let result: ToolResult;
    try {
      result = await runToolCall(run, call, step, index);
    } catch (error) {
      return failedCall(run, error, `the ${call.name} call`);
    }
    run.messages = [...run.messages, {
      role: "tool",
      toolCallId: call.id,
      name: call.name,
      content: result.content,
      isError: result.isError,
    }];
    if (result.finish) finished = true;
  }
  if (!finished) return undefined;
  run.counters.finished = true;
  return new Stop("completed", "the agent called finish");
}

/** The first line of a text, at most 200 characters. */
function firstLine(text: string): string {
  return text.split("\n")[0].slice(0, 200);
}
