/**
 * OpenAI Responses on the gateway (`POST /v1/responses`): the request read into Verdict's form,
 * the answer rendered as a `response` object or as its event stream (`response.created`,
 * `response.in_progress`, per output item `response.output_item.added`, its text or argument
 * deltas and `response.output_item.done`, then `response.completed` with the usage inside, or
 * `response.incomplete` when the output budget ran out).
 *
 * Read: `instructions` and every `system` or `developer` input message make the system prompt;
 * `input` is a string (one user message) or a list of items: messages (content a string or text
 * parts), `function_call` items (joined to the assistant turn before them) and
 * `function_call_output` items. Reasoning items and hosted-tool items carry nothing Verdict's
 * conversation holds and are left out; so are tools other than `function` tools.
 * `previous_response_id` is refused: the gateway keeps no conversation state, so an agent must
 * send the whole input (as Codex CLI does).
 *
 * @module
 */
import type { Message, ModelResponse, ToolSchema } from "../model/model.ts";
import type { GatewayAnswer, GatewayCall } from "./gateway.ts";
import { openAiError, openAiInput } from "./_openai_wire.ts";
import {
  argumentsText,
  arrayField,
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
  DEFAULT_MAX_OUTPUT_TOKENS,
  JSON_TYPE,
  SSE_TYPE,
  type WireCodec,
  type WireRequest,
} from "./wire_codec.ts";

/**
 * The Responses codec.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { responses } from "./responses.ts";
 * const read = responses.read({ model: "gpt-5", instructions: "be brief", input: "hi" });
 * assert(read.request.system === "be brief" && read.request.messages[0].role === "user");
 * const answer = responses.render(
 *   { number: 1, format: "responses", stream: false, model: "gpt-5", body: "", request: read.request },
 *   { content: "hello", toolCalls: [], finish: "stop", usage: { input: 5, cachedInput: 0, output: 1 } },
 * );
 * assert(JSON.parse(answer.body).output[0].content[0].text === "hello");
 * ```
 */
export const responses: WireCodec = {
  format: "responses",
  read: readResponses,
  render(call, response) {
    return call.stream ? streamResponse(call, response) : responseAnswer(call, response);
  },
  error: openAiError,
};

function readResponses(body: unknown): WireRequest {
  const root = objectField(body, "body");
  const model = stringField(root.model, "model");
  if (root.previous_response_id != null) {
    throw new WireRequestError(
      "previous_response_id",
      "is not supported: the gateway keeps no state; send the whole conversation in input",
    );
  }
  const system = [optionalString(root.instructions, "instructions", "")].filter((text) => text);
  const messages: Message[] = [];
  const toolNames = new Map<string, string>();
  const input = typeof root.input === "string"
    ? [{ role: "user", content: root.input }]
    : arrayField(root.input, "input");
  input.forEach((raw, index) => {
    const field = `input[${index}]`;
    const item = objectField(raw, field);
    const type = optionalString(item.type, `${field}.type`, "message");
    if (type === "message") {
      const role = stringField(item.role, `${field}.role`);
      const content = contentText(item.content, `${field}.content`);
      if (role === "system" || role === "developer") system.push(content);
      else if (role === "user") messages.push({ role: "user", content });
      else if (role === "assistant") messages.push({ role: "assistant", content, toolCalls: [] });
      else {
        throw new WireRequestError(
          `${field}.role`,
          `must be system, developer, user or assistant (got "${role}")`,
        );
      }
    } else if (type === "function_call") {
      const call = {
        id: stringField(item.call_id, `${field}.call_id`),
        name: stringField(item.name, `${field}.name`),
        arguments: argumentsText(item.arguments, `${field}.arguments`),
      };
      toolNames.set(call.id, call.name);
      const last = messages.at(-1);
      if (last?.role === "assistant") last.toolCalls.push(call);
      else messages.push({ role: "assistant", content: "", toolCalls: [call] });
    } else if (type === "function_call_output") {
      const id = stringField(item.call_id, `${field}.call_id`);
      messages.push({
        role: "tool",
        toolCallId: id,
        name: toolNames.get(id) ?? "",
        content: contentText(item.output, `${field}.output`),
        isError: false,
      });
    }
  });
  return {
    model,
    stream: optionalBoolean(root.stream, "stream"),
    streamUsage: false,
    request: {
      system: system.join("\n\n"),
      messages,
      tools: readTools(root.tools),
      maxOutputTokens: optionalPositiveInteger(
        root.max_output_tokens,
        "max_output_tokens",
        DEFAULT_MAX_OUTPUT_TOKENS,
      ),
    },
  };
}

function readTools(value: unknown): ToolSchema[] {
  if (value === undefined || value === null) return [];
  const tools: ToolSchema[] = [];
  arrayField(value, "tools").forEach((raw, index) => {
    const tool = objectField(raw, `tools[${index}]`);
    if (tool.type !== "function") return; // hosted and custom tools have no JSON schema to offer
    tools.push({
      name: stringField(tool.name, `tools[${index}].name`),
      description: optionalString(tool.description, `tools[${index}].description`, ""),
      parameters: objectField(
        tool.parameters ?? { type: "object", properties: {} },
        `tools[${index}].parameters`,
      ),
    });
  });
  return tools;
}

/** The output items of an answer: its message (when it has text, or nothing else), its calls. */
function outputItems(call: GatewayCall, response: ModelResponse): Json[] {
  const items: Json[] = [];
  if (response.content !== "" || response.toolCalls.length === 0) {
    items.push({
      type: "message",
      id: `msg_verdict_${call.number}`,
      status: "completed",
      role: "assistant",
      content: [contentPart(response, response.content)],
    });
  }
  response.toolCalls.forEach((tool, index) => {
    items.push({
      type: "function_call",
      id: `fc_verdict_${call.number}_${index}`,
      call_id: tool.id,
      name: tool.name,
      arguments: tool.arguments,
      status: "completed",
    });
  });
  return items;
}

function contentPart(response: ModelResponse, text: string): Json {
  return response.finish === "refusal"
    ? { type: "refusal", refusal: text }
    : { type: "output_text", text, annotations: [], logprobs: [] };
}

function responseObject(
  call: GatewayCall,
  response: ModelResponse,
  state: { status: string; output: Json[]; usage: boolean },
): Json {
  const input = openAiInput(response.usage);
  const incomplete = state.status === "incomplete";
  return {
    id: `resp_verdict_${call.number}`,
    object: "response",
    created_at: 0,
    status: state.status,
    error: null,
    incomplete_details: incomplete ? { reason: "max_output_tokens" } : null,
    instructions: null,
    max_output_tokens: call.request.maxOutputTokens,
    model: call.model,
    output: state.output,
    parallel_tool_calls: true,
    previous_response_id: null,
    store: false,
    temperature: 1,
    text: { format: { type: "text" } },
    tool_choice: "auto",
    tools: [],
    top_p: 1,
    truncation: "disabled",
    usage: state.usage
      ? {
        input_tokens: input.total,
        input_tokens_details: { cached_tokens: input.cached },
        output_tokens: response.usage.output,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: input.total + response.usage.output,
      }
      : null,
    metadata: {},
  };
}

function finalStatus(response: ModelResponse): string {
  return response.finish === "length" ? "incomplete" : "completed";
}

function responseAnswer(call: GatewayCall, response: ModelResponse): GatewayAnswer {
  const output = outputItems(call, response);
  return {
    status: 200,
    contentType: JSON_TYPE,
    body: JSON.stringify(
      responseObject(call, response, { status: finalStatus(response), output, usage: true }),
    ),
    usage: response.usage,
  };
}

function streamResponse(call: GatewayCall, response: ModelResponse): GatewayAnswer {
  let sequence = 0;
  let body = "";
  const emit = (type: string, fields: Json) => {
    body += sseEvent({ type, sequence_number: sequence++, ...fields }, type);
  };
  const started = responseObject(call, response, {
    status: "in_progress",
    output: [],
    usage: false,
  });
  emit("response.created", { response: started });
  emit("response.in_progress", { response: started });
  const output = outputItems(call, response);
  output.forEach((item, outputIndex) => {
    const at = { item_id: item.id, output_index: outputIndex };
    if (item.type === "message") {
      emit("response.output_item.added", {
        output_index: outputIndex,
        item: { ...item, status: "in_progress", content: [] },
      });
      const part = { ...at, content_index: 0 };
      const refusal = response.finish === "refusal";
      emit("response.content_part.added", { ...part, part: contentPart(response, "") });
      for (const delta of deltaPieces(response.content)) {
        if (refusal) emit("response.refusal.delta", { ...part, delta });
        else emit("response.output_text.delta", { ...part, delta, logprobs: [] });
      }
      if (refusal) emit("response.refusal.done", { ...part, refusal: response.content });
      else emit("response.output_text.done", { ...part, text: response.content, logprobs: [] });
      emit("response.content_part.done", { ...part, part: (item.content as Json[])[0] });
    } else {
      emit("response.output_item.added", {
        output_index: outputIndex,
        item: { ...item, status: "in_progress", arguments: "" },
      });
      const text = item.arguments as string;
      for (const delta of deltaPieces(text)) {
        emit("response.function_call_arguments.delta", { ...at, delta });
      }
      emit("response.function_call_arguments.done", { ...at, arguments: text });
    }
    emit("response.output_item.done", { output_index: outputIndex, item });
  });
  const status = finalStatus(response);
  emit(`response.${status}`, {
    response: responseObject(call, response, { status, output, usage: true }),
  });
  return { status: 200, contentType: SSE_TYPE, body, usage: response.usage };
}
