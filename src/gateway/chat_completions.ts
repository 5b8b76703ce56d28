/**
 * OpenAI Chat Completions on the gateway (`POST /v1/chat/completions`): the request read into
 * Verdict's form, the answer rendered as a `chat.completion` or as a stream of
 * `chat.completion.chunk` events ending `data: [DONE]`. The inverse of the client in
 * `src/model/openai.ts`: what one writes, the other reads back unchanged.
 *
 * Read: every `system` and `developer` message joins the system prompt (in order, by blank lines);
 * content is a string or a list of parts, of which the text parts count; an assistant turn's
 * `tool_calls` become tool calls; a `tool` message is the result of the call it names.
 * Tools other than `function` tools are left out. `max_completion_tokens` (or the older
 * `max_tokens`) is the output budget.
 *
 * @module
 */
import type { Message, ModelResponse, ToolCall, ToolSchema } from "../model/model.ts";
import type { GatewayAnswer, GatewayCall } from "./gateway.ts";
import { openAiError, openAiInput } from "./_openai_wire.ts";
import {
  argumentsText,
  arrayField,
  isObject,
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
  DEFAULT_MAX_OUTPUT_TOKENS,
  JSON_TYPE,
  SSE_TYPE,
  type WireCodec,
  type WireRequest,
} from "./wire_codec.ts";

/**
 * The Chat Completions codec.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { chatCompletions } from "./chat_completions.ts";
 * const read = chatCompletions.read({
 *   model: "gpt-4o",
 *   messages: [{ role: "system", content: "be brief" }, { role: "user", content: "hi" }],
 * });
 * assert(read.request.system === "be brief" && read.request.messages.length === 1);
 * const answer = chatCompletions.render(
 *   { number: 1, format: "chat_completions", stream: false, model: "gpt-4o", body: "", request: read.request },
 *   { content: "hello", toolCalls: [], finish: "stop", usage: { input: 5, cachedInput: 0, output: 1 } },
 * );
 * assert(JSON.parse(answer.body).choices[0].message.content === "hello");
 * ```
 */
export const chatCompletions: WireCodec = {
  format: "chat_completions",
  read: readChatCompletions,
  render(call, response) {
    return call.stream ? streamChatCompletion(call, response) : chatCompletion(call, response);
  },
  error: openAiError,
};

function readChatCompletions(body: unknown): WireRequest {
  const root = objectField(body, "body");
  const model = stringField(root.model, "model");
  const stream = optionalBoolean(root.stream, "stream");
  const options = root.stream_options;
  const system: string[] = [];
  const messages: Message[] = [];
  const toolNames = new Map<string, string>();
  arrayField(root.messages, "messages").forEach((raw, index) => {
    const field = `messages[${index}]`;
    const message = objectField(raw, field);
    const role = stringField(message.role, `${field}.role`);
    const content = () => contentText(message.content, `${field}.content`);
    switch (role) {
      case "system":
      case "developer":
        system.push(content());
        break;
      case "user":
        messages.push({ role: "user", content: content() });
        break;
      case "assistant": {
        const toolCalls = readToolCalls(message.tool_calls, `${field}.tool_calls`);
        for (const call of toolCalls) toolNames.set(call.id, call.name);
        messages.push({ role: "assistant", content: content(), toolCalls });
        break;
      }
      case "tool": {
        const id = stringField(message.tool_call_id, `${field}.tool_call_id`);
        messages.push({
          role: "tool",
          toolCallId: id,
          name: toolNames.get(id) ?? "",
          content: content(),
          isError: false,
        });
        break;
      }
      default:
        throw new WireRequestError(
          `${field}.role`,
          `must be system, developer, user, assistant or tool (got "${role}")`,
        );
    }
  });
  const budgetField = root.max_completion_tokens != null ? "max_completion_tokens" : "max_tokens";
  return {
    model,
    stream,
    streamUsage: stream && isObject(options) && options.include_usage === true,
    request: {
      system: system.join("\n\n"),
      messages,
      tools: readTools(root.tools),
      maxOutputTokens: optionalPositiveInteger(
        root[budgetField],
        budgetField,
        DEFAULT_MAX_OUTPUT_TOKENS,
      ),
    },
  };
}

function readToolCalls(value: unknown, field: string): ToolCall[] {
  if (value === undefined || value === null) return [];
  return arrayField(value, field).map((raw, index) => {
    const call = objectField(raw, `${field}[${index}]`);
    const fn = objectField(call.function, `${field}[${index}].function`);
    return {
      id: stringField(call.id, `${field}[${index}].id`),
      name: stringField(fn.name, `${field}[${index}].function.name`),
      arguments: argumentsText(fn.arguments, `${field}[${index}].function.arguments`),
    };
  });
}

function readTools(value: unknown): ToolSchema[] {
  if (value === undefined || value === null) return [];
  const tools: ToolSchema[] = [];
  arrayField(value, "tools").forEach((raw, index) => {
    const tool = objectField(raw, `tools[${index}]`);
    if (tool.type !== "function") return; // custom and hosted tools have no JSON schema to offer
    const fn = objectField(tool.function, `tools[${index}].function`);
    const parameters = fn.parameters ?? { type: "object", properties: {} };
    tools.push({
      name: stringField(fn.name, `tools[${index}].function.name`),
      description: optionalString(fn.description, `tools[${index}].function.description`, ""),
      parameters: objectField(parameters, `tools[${index}].function.parameters`),
    });
  });
  return tools;
}

function finishReason(response: ModelResponse): string {
  // A refusal is carried by the message's `refusal` field; the client in openai.ts reads it back.
  return response.finish === "refusal" ? "stop" : response.finish;
}

function usageBlock(response: ModelResponse): Record<string, unknown> {
  const input = openAiInput(response.usage);
  return {
    prompt_tokens: input.total,
    completion_tokens: response.usage.output,
    total_tokens: input.total + response.usage.output,
    prompt_tokens_details: { cached_tokens: input.cached },
    completion_tokens_details: { reasoning_tokens: 0 },
  };
}

function chatCompletion(call: GatewayCall, response: ModelResponse): GatewayAnswer {
  const refusal = response.finish === "refusal";
  const message = {
    role: "assistant",
    content: refusal || (response.content === "" && response.toolCalls.length > 0)
      ? null
      : response.content,
    refusal: refusal ? response.content : null,
    ...(response.toolCalls.length > 0
      ? {
        tool_calls: response.toolCalls.map((tool) => ({
          id: tool.id,
          type: "function",
          function: { name: tool.name, arguments: tool.arguments },
        })),
      }
      : {}),
  };
  return {
    status: 200,
    contentType: JSON_TYPE,
    body: JSON.stringify({
      id: completionId(call),
      object: "chat.completion",
      created: 0,
      model: call.model,
      choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason(response) }],
      usage: usageBlock(response),
    }),
    usage: response.usage,
  };
}

function streamChatCompletion(call: GatewayCall, response: ModelResponse): GatewayAnswer {
  const head = { id: completionId(call), object: "chat.completion.chunk", created: 0 };
  const withUsage = call.streamUsage === true;
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
    sseEvent({
      ...head,
      model: call.model,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
      ...(withUsage ? { usage: null } : {}),
    });
  const refusal = response.finish === "refusal";
  let body = chunk(
    refusal ? { role: "assistant", refusal: "" } : { role: "assistant", content: "" },
  );
  for (const piece of deltaPieces(response.content)) {
    body += chunk(refusal ? { refusal: piece } : { content: piece });
  }
  response.toolCalls.forEach((tool, index) => {
    body += chunk({
      tool_calls: [{
        index,
        id: tool.id,
        type: "function",
        function: { name: tool.name, arguments: "" },
      }],
    });
    for (const piece of deltaPieces(tool.arguments)) {
      body += chunk({ tool_calls: [{ index, function: { arguments: piece } }] });
    }
  });
  body += chunk({}, finishReason(response));
  if (withUsage) {
    body += sseEvent({ ...head, model: call.model, choices: [], usage: usageBlock(response) });
  }
  body += "data: [DONE]\n\n";
  return { status: 200, contentType: SSE_TYPE, body, usage: response.usage };
}

function completionId(call: GatewayCall): string {
  return `chatcmpl-verdict-${call.number}`;
}
