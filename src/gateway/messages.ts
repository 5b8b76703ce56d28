/**
 * Anthropic Messages on the gateway (`POST /v1/messages`, also as `/v1/messages?beta=true`): the
 * request read into Verdict's form, the answer rendered as a `message` or as its event stream
 * (`message_start`, per block `content_block_start`, `text_delta` or `input_json_delta` deltas and
 * `content_block_stop`, then `message_delta` with the stop reason and usage, and `message_stop`).
 * The inverse of the client in `src/model/anthropic.ts`.
 *
 * Read: `system` is a string or a list of text blocks; a user turn's `tool_result` blocks become
 * tool results (in order, before the turn's text); an assistant turn's `tool_use` blocks become
 * tool calls. Thinking, image and document blocks are left out, as are server tools (those
 * without an `input_schema`). `max_tokens` is required, as the API requires it.
 *
 * @module
 */
import type { Message, ModelResponse, ToolCall, ToolSchema } from "../model/model.ts";
import type { GatewayAnswer, GatewayCall } from "./gateway.ts";
import {
  arrayField,
  isObject,
  type Json,
  objectField,
  optionalBoolean,
  optionalPositiveInteger,
  optionalString,
  stringField,
  WireRequestError,
} from "./_wire_fields.ts";
import { contentText } from "./_wire_text.ts";
import { deltaPieces, sseEvent } from "./sse.ts";
import {
  JSON_TYPE,
  SSE_TYPE,
  type WireCodec,
  type WireErrorKind,
  type WireRequest,
} from "./wire_codec.ts";

/**
 * The Messages codec.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { messages } from "./messages.ts";
 * const read = messages.read({
 *   model: "claude-sonnet-4-5", max_tokens: 100, system: "be brief",
 *   messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
 * });
 * assert(read.request.system === "be brief" && read.request.maxOutputTokens === 100);
 * const answer = messages.render(
 *   { number: 1, format: "messages", stream: false, model: "m", body: "", request: read.request },
 *   { content: "hello", toolCalls: [], finish: "stop", usage: { input: 5, cachedInput: 0, output: 1 } },
 * );
 * assert(JSON.parse(answer.body).stop_reason === "end_turn");
 * ```
 */
export const messages: WireCodec = {
  format: "messages",
  read: readMessages,
  render(call, response) {
    return call.stream ? streamMessage(call, response) : messageAnswer(call, response);
  },
  error: anthropicError,
};

function readMessages(body: unknown): WireRequest {
  const root = objectField(body, "body");
  const model = stringField(root.model, "model");
  if (root.max_tokens === undefined) throw new WireRequestError("max_tokens", "is missing");
  const maxOutputTokens = optionalPositiveInteger(root.max_tokens, "max_tokens", 1);
  const conversation: Message[] = [];
  const toolNames = new Map<string, string>();
  const systemTexts = [contentText(root.system, "system")];
  arrayField(root.messages, "messages").forEach((raw, index) => {
    const field = `messages[${index}]`;
    const message = objectField(raw, field);
    const role = stringField(message.role, `${field}.role`);
    if (role === "system") {
      systemTexts.push(contentText(message.content, `${field}.content`));
      return;
    }
    if (role !== "user" && role !== "assistant") {
      throw new WireRequestError(
        `${field}.role`,
        `must be user, assistant or system (got "${role}")`,
      );
    }
    const blocks = typeof message.content === "string"
      ? [{ type: "text", text: message.content }]
      : arrayField(message.content, `${field}.content`);
    const texts: string[] = [];
    const toolCalls: ToolCall[] = [];
    blocks.forEach((rawBlock, blockIndex) => {
      const at = `${field}.content[${blockIndex}]`;
      const block = objectField(rawBlock, at);
      const type = stringField(block.type, `${at}.type`);
      if (type === "text") texts.push(stringField(block.text, `${at}.text`));
      else if (type === "tool_use" && role === "assistant") {
        const call = {
          id: stringField(block.id, `${at}.id`),
          name: stringField(block.name, `${at}.name`),
          arguments: JSON.stringify(objectField(block.input ?? {}, `${at}.input`)),
        };
        toolNames.set(call.id, call.name);
        toolCalls.push(call);
      } else if (type === "tool_result" && role === "user") {
        const id = stringField(block.tool_use_id, `${at}.tool_use_id`);
        conversation.push({
          role: "tool",
          toolCallId: id,
          name: toolNames.get(id) ?? "",
          content: contentText(block.content, `${at}.content`),
          isError: optionalBoolean(block.is_error, `${at}.is_error`),
        });
      }
    });
    const content = texts.join("\n");
    if (role === "assistant") conversation.push({ role, content, toolCalls });
    else if (texts.length > 0) conversation.push({ role, content });
  });
  return {
    model,
    stream: optionalBoolean(root.stream, "stream"),
    streamUsage: false,
    request: {
      system: systemTexts.filter((text) => text !== "").join("\n\n"),
      messages: conversation,
      tools: readTools(root.tools),
      maxOutputTokens,
    },
  };
}

function readTools(value: unknown): ToolSchema[] {
  if (value === undefined || value === null) return [];
  const tools: ToolSchema[] = [];
  arrayField(value, "tools").forEach((raw, index) => {
    const tool = objectField(raw, `tools[${index}]`);
    if (tool.input_schema === undefined) return; // a server tool (web search, bash, editor)
    tools.push({
      name: stringField(tool.name, `tools[${index}].name`),
      description: optionalString(tool.description, `tools[${index}].description`, ""),
      parameters: objectField(tool.input_schema, `tools[${index}].input_schema`),
    });
  });
  return tools;
}

const ERROR_TYPES: Record<WireErrorKind, string> = {
  invalid_request: "invalid_request_error",
  authentication: "authentication_error",
  not_found: "not_found_error",
  upstream: "api_error",
};

function anthropicError(
  status: number,
  kind: WireErrorKind,
  message: string,
): GatewayAnswer {
  return {
    status,
    contentType: JSON_TYPE,
    body: JSON.stringify({ type: "error", error: { type: ERROR_TYPES[kind], message } }),
    usage: null,
  };
}

const STOP_REASONS: Record<ModelResponse["finish"], string> = {
  stop: "end_turn",
  tool_calls: "tool_use",
  length: "max_tokens",
  refusal: "refusal",
};

function usageBlock(response: ModelResponse, output: number): Json {
  return {
    input_tokens: response.usage.input,
    cache_creation_input_tokens: response.usage.cacheWriteInput ?? 0,
    cache_read_input_tokens: response.usage.cachedInput,
    output_tokens: output,
  };
}

/** The content blocks: the text (when there is some, or nothing else), then the tool calls. */
function contentBlocks(response: ModelResponse): Json[] {
  const blocks: Json[] = response.content !== "" || response.toolCalls.length === 0
    ? [{ type: "text", text: response.content }]
    : [];
  for (const call of response.toolCalls) {
    blocks.push({ type: "tool_use", id: call.id, name: call.name, input: toolInput(call) });
  }
  return blocks;
}

function toolInput(call: ToolCall): Json {
  try {
    const value = JSON.parse(call.arguments);
    return isObject(value) ? value : {};
  } catch {
    return {}; // the API's tool input is always an object, as src/model/anthropic.ts sends it
  }
}

function messageHead(call: GatewayCall): Json {
  return {
    id: `msg_verdict_${call.number}`,
    type: "message",
    role: "assistant",
    model: call.model,
  };
}

function messageAnswer(call: GatewayCall, response: ModelResponse): GatewayAnswer {
  return {
    status: 200,
    contentType: JSON_TYPE,
    body: JSON.stringify({
      ...messageHead(call),
      content: contentBlocks(response),
      stop_reason: STOP_REASONS[response.finish],
      stop_sequence: null,
      usage: usageBlock(response, response.usage.output),
    }),
    usage: response.usage,
  };
}

function streamMessage(call: GatewayCall, response: ModelResponse): GatewayAnswer {
  let body = "";
  const emit = (type: string, fields: Json) => {
    body += sseEvent({ type, ...fields }, type);
  };
  emit("message_start", {
    message: {
      ...messageHead(call),
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: usageBlock(response, 0),
    },
  });
  contentBlocks(response).forEach((block, index) => {
    if (block.type === "text") {
      emit("content_block_start", { index, content_block: { type: "text", text: "" } });
      for (const text of deltaPieces(block.text as string)) {
        emit("content_block_delta", { index, delta: { type: "text_delta", text } });
      }
    } else {
      emit("content_block_start", { index, content_block: { ...block, input: {} } });
      for (const partial_json of deltaPieces(JSON.stringify(block.input))) {
        emit("content_block_delta", { index, delta: { type: "input_json_delta", partial_json } });
      }
    }
    emit("content_block_stop", { index });
  });
  emit("message_delta", {
    delta: { stop_reason: STOP_REASONS[response.finish], stop_sequence: null },
    usage: usageBlock(response, response.usage.output),
  });
  emit("message_stop", {});
  return { status: 200, contentType: SSE_TYPE, body, usage: response.usage };
}
