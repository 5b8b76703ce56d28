/**
 * OpenAI-compatible Chat Completions with tool calling (`POST {base}/chat/completions`), the
 * protocol OpenAI, vLLM, llama.cpp, Ollama and most gateways speak.
 *
 * @module
 */
import { type HttpDeps, postJson } from "./_http.ts";
import type { Message, Model, ModelRequest, ModelResponse, ToolCall } from "./model.ts";
import { MalformedResponse } from "./model_errors.ts";
import { openAiFamily } from "./openai_family.ts";
import { endpointSecrets } from "./provider_options.ts";
import { redactResponse } from "./redaction.ts";

/** The default base URL (ending in `/v1`, as usual for this protocol). */
export const OPENAI_DEFAULT_BASE_URL = "https://api.openai.com/v1";

/** How to reach an OpenAI-compatible endpoint. */
export interface OpenAiOptions {
  /** The model name, such as `gpt-4o`. */
  model: string;
  /** The base URL, ending in `/v1`. */
  baseUrl: string;
  /** The API key (sent as a bearer token; may be empty for local servers). */
  apiKey: string;
  /** Extra request headers (`--header`), by lower-case name; they win over Verdict's own. */
  headers?: Record<string, string>;
}

/**
 * A model behind an OpenAI-compatible endpoint.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openAiModel } from "./openai.ts";
 * import { LogicalClock } from "../core/clock.ts";
 * import { SplitMix64 } from "../core/rng.ts";
 * import { DEFAULT_RETRY } from "./_http.ts";
 * const model = openAiModel(
 *   { model: "gpt-4o", baseUrl: "http://127.0.0.1:8000/v1", apiKey: "" },
 *   { clock: new LogicalClock(), rng: new SplitMix64(1), retry: DEFAULT_RETRY, secrets: [] },
 * );
 * assert(model.spec === "openai:gpt-4o");
 * ```
 */
export function openAiModel(options: OpenAiOptions, http: HttpDeps): Model {
  const url = `${options.baseUrl.replace(/\/+$/, "")}/chat/completions`;
  const extra = options.headers ?? {};
  const secrets = endpointSecrets(http.secrets, options);
  const headers = {
    ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}),
    ...extra,
  };
  return {
    spec: `openai:${options.model}`,
    remote: true,
    async complete(request, { signal }) {
      const body = await postJson({
        provider: "openai",
        url,
        headers,
        body: toOpenAiRequest(options.model, request),
        signal,
      }, { ...http, secrets });
      // An endpoint can echo the key: nothing past this point (the agent, the record) sees it.
      return redactResponse(fromOpenAiResponse(body), secrets);
    },
  };
}

/**
 * The Chat Completions request body for a request. A reasoning model (see `openai_family.ts`) gets
 * the system prompt as a `developer` message; `temperature` and `reasoning_effort` are sent when
 * the request's parameters hold them.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { toOpenAiRequest } from "./openai.ts";
 * const body = toOpenAiRequest("gpt-4o", {
 *   system: "s", messages: [{ role: "user", content: "hi" }], tools: [], maxOutputTokens: 100,
 * });
 * assert((body.messages as unknown[]).length === 2);
 * ```
 */
export function toOpenAiRequest(model: string, request: ModelRequest): Record<string, unknown> {
  const parameters = request.parameters ?? {};
  return {
    model,
    messages: [
      {
        role: openAiFamily(model) === "reasoning" ? "developer" : "system",
        content: request.system,
      },
      ...request.messages.map(toOpenAiMessage),
    ],
    ...(request.tools.length > 0
      ? {
        tools: request.tools.map((tool) => ({
          type: "function",
          function: { name: tool.name, description: tool.description, parameters: tool.parameters },
        })),
      }
      : {}),
    max_completion_tokens: request.maxOutputTokens,
    ...(parameters.temperature !== undefined ? { temperature: parameters.temperature } : {}),
    ...(parameters.reasoning_effort !== undefined
      ? { reasoning_effort: parameters.reasoning_effort }
      : {}),
  };
}

function toOpenAiMessage(message: Message): Record<string, unknown> {
  switch (message.role) {
    case "user":
      return { role: "user", content: message.content };
    case "assistant":
      return {
        role: "assistant",
        content: message.content === "" && message.toolCalls.length > 0 ? null : message.content,
        ...(message.toolCalls.length > 0
          ? {
            tool_calls: message.toolCalls.map((call) => ({
              id: call.id,
              type: "function",
              function: { name: call.name, arguments: call.arguments },
            })),
          }
          : {}),
      };
    case "tool":
      return { role: "tool", tool_call_id: message.toolCallId, content: message.content };
  }
}

/**
 * Reads a Chat Completions response body.
 *
 * @throws {MalformedResponse} when `choices`, the message, or a tool call's fields are missing.
 */
export function fromOpenAiResponse(body: unknown): ModelResponse {
  const malformed = (problem: string) => new MalformedResponse("openai", problem);
  const choices = (body as { choices?: unknown })?.choices;
  if (!Array.isArray(choices) || choices.length === 0) {
    throw malformed("no choices in the response");
  }
  const choice = choices[0] as { message?: Record<string, unknown>; finish_reason?: unknown };
  const message = choice.message;
  if (message === null || typeof message !== "object") throw malformed("choices[0] has no message");
  const content = message.content ?? "";
  if (typeof content !== "string") throw malformed("choices[0].message.content is not text");
  const rawCalls = message.tool_calls ?? [];
  if (!Array.isArray(rawCalls)) throw malformed("choices[0].message.tool_calls is not a list");
  const toolCalls: ToolCall[] = rawCalls.map((raw, index) => {
    const call = raw as { id?: unknown; function?: { name?: unknown; arguments?: unknown } };
    if (typeof call.function?.name !== "string") {
      throw malformed(`tool_calls[${index}] has no function name`);
    }
    const args = call.function.arguments;
    return {
      id: typeof call.id === "string" ? call.id : `call_${index}`,
      name: call.function.name,
      arguments: typeof args === "string" ? args : JSON.stringify(args ?? {}),
    };
  });
  const usage = (body as { usage?: Record<string, unknown> }).usage ?? {};
  const prompt = count(usage.prompt_tokens);
  const cached = count(
    (usage.prompt_tokens_details as Record<string, unknown> | undefined)?.cached_tokens,
  );
  const refusal = typeof message.refusal === "string" && message.refusal !== "";
  return {
    content: refusal && content === "" ? String(message.refusal) : content,
    toolCalls,
    finish: refusal || choice.finish_reason === "content_filter"
      ? "refusal"
      : toolCalls.length > 0
      ? "tool_calls"
      : choice.finish_reason === "length"
      ? "length"
      : "stop",
    usage: {
      input: Math.max(0, prompt - cached),
      cachedInput: cached,
      output: count(usage.completion_tokens),
    },
  };
}

function count(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : 0;
}
