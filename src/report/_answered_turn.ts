/**
 * What the model said in a gateway answer (its text and tool calls), read from the answer's raw
 * body in its wire format, JSON or a whole event stream, so that an installed agent's steps show
 * what its model asked for as the loop's steps do.
 *
 * @module
 */
import { fromAnthropicResponse } from "../model/anthropic.ts";
import { fromOpenAiResponse } from "../model/openai.ts";
import type { ToolCall } from "../model/model.ts";
import type { EVENT, EventPayload } from "../store/event_catalogue.ts";
import { sseData } from "../gateway/sse.ts";

/** The text and tool calls of an answer. */
export interface AnsweredTurn {
  /** The answer's text. */
  content: string;
  /** Its tool calls, in order. */
  toolCalls: ToolCall[];
}

type Json = Record<string, unknown>;

/**
 * What the model said in a gateway answer; undefined for an error answer or a body that cannot be
 * read (the step's summary line then describes the call).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { answeredTurn } from "./_answered_turn.ts";
 * const call = { number: 1, format: "messages" as const, stream: true, model: "m", body: "{}" };
 * const body = [
 *   { type: "content_block_start", index: 0, content_block: { type: "tool_use", id: "t", name: "Bash", input: {} } },
 *   { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: '{"command":"ls"}' } },
 * ].map((data) => `event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`).join("");
 * const answer = { number: 1, status: 200, content_type: "text/event-stream", body, usage: null, cost_usd: null };
 * assert.deepEqual(answeredTurn(call, answer)?.toolCalls, [{ id: "t", name: "Bash", arguments: '{"command":"ls"}' }]);
 * ```
 */
export function answeredTurn(
  call: EventPayload<typeof EVENT.gatewayCall>,
  answer: EventPayload<typeof EVENT.gatewayAnswer>,
): AnsweredTurn | undefined {
  if (answer.status !== 200) return undefined;
  try {
    const stream = answer.content_type.toLowerCase().startsWith("text/event-stream");
    switch (call.format) {
      case "messages":
        return stream
          ? messagesStream(sseData(answer.body))
          : fromAnthropicResponse(JSON.parse(answer.body));
      case "chat_completions":
        return stream
          ? chatStream(sseData(answer.body))
          : fromOpenAiResponse(JSON.parse(answer.body));
      case "responses":
        return responsesTurn(
          stream ? streamedOutput(sseData(answer.body)) : responseOutput(JSON.parse(answer.body)),
        );
    }
  } catch {
    return undefined;
  }
}

/** Messages: text blocks and `tool_use` blocks, each built from its start and its deltas. */
function messagesStream(events: Json[]): AnsweredTurn {
  const blocks = new Map<
    unknown,
    { type: unknown; text: string; id: string; name: string; json: string; input: unknown }
  >();
  for (const event of events) {
    if (event.type === "content_block_start" && isObject(event.content_block)) {
      const block = event.content_block;
      blocks.set(event.index, {
        type: block.type,
        text: text(block.text),
        id: text(block.id),
        name: text(block.name),
        json: "",
        input: block.input,
      });
    } else if (event.type === "content_block_delta" && isObject(event.delta)) {
      const block = blocks.get(event.index);
      if (!block) continue;
      block.text += text(event.delta.text);
      block.json += text(event.delta.partial_json);
    }
  }
  const all = [...blocks.values()];
  return {
    content: all.filter((block) => block.type === "text").map((block) => block.text).join(""),
    toolCalls: all.filter((block) => block.type === "tool_use").map((block) => ({
      id: block.id,
      name: block.name,
      arguments: block.json !== "" ? block.json : JSON.stringify(block.input ?? {}),
    })),
  };
}

/** Chat Completions: the first choice's content and tool-call deltas, by tool-call index. */
function chatStream(events: Json[]): AnsweredTurn {
  let content = "";
  const calls = new Map<unknown, ToolCall>();
  for (const event of events) {
    const choice = Array.isArray(event.choices) ? event.choices[0] : undefined;
    const delta = isObject(choice) ? choice.delta : undefined;
    if (!isObject(delta)) continue;
    content += text(delta.content);
    for (const piece of Array.isArray(delta.tool_calls) ? delta.tool_calls : []) {
      if (!isObject(piece)) continue;
      const fn = isObject(piece.function) ? piece.function : {};
      const call = calls.get(piece.index) ?? { id: "", name: "", arguments: "" };
      call.id ||= text(piece.id);
      call.name ||= text(fn.name);
      call.arguments += text(fn.arguments);
      calls.set(piece.index, call);
    }
  }
  return { content, toolCalls: [...calls.values()] };
}

/** Responses, streamed: the items of `response.output_item.done`, else the final response's. */
function streamedOutput(events: Json[]): unknown[] {
  const done = events
    .filter((event) => event.type === "response.output_item.done")
    .map((event) => event.item);
  if (done.length > 0) return done;
  const last = events.findLast((event) => isObject(event.response));
  return responseOutput(last?.response);
}

function responseOutput(response: unknown): unknown[] {
  return isObject(response) && Array.isArray(response.output) ? response.output : [];
}

/** Responses: message items' text, and function (and custom, freeform) tool calls. */
function responsesTurn(items: unknown[]): AnsweredTurn {
  let content = "";
  const toolCalls: ToolCall[] = [];
  for (const item of items) {
    if (!isObject(item)) continue;
    if (item.type === "message" && Array.isArray(item.content)) {
      for (const part of item.content) if (isObject(part)) content += text(part.text);
    } else if (item.type === "function_call" || item.type === "custom_tool_call") {
      toolCalls.push({
        id: text(item.call_id),
        name: text(item.name),
        arguments: text(item.type === "function_call" ? item.arguments : item.input),
      });
    }
  }
  return { content, toolCalls };
}

function isObject(value: unknown): value is Json {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function text(value: unknown): string {
  return typeof value === "string" ? value : "";
}
