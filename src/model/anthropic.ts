/**
 * The Anthropic Messages API (`POST {base}/v1/messages`): the system prompt in its own field,
 * `tool_use` blocks in assistant turns, `tool_result` blocks in the user turn that follows.
 *
 * @module
 */
import { withPromptCache } from "./_anthropic_cache.ts";
import { type HttpDeps, postJson } from "./_http.ts";
import type { Message, Model, ModelRequest, ModelResponse, ToolCall } from "./model.ts";
import { MalformedResponse } from "./model_errors.ts";
import { endpointSecrets } from "./provider_options.ts";
import { redactResponse } from "./redaction.ts";

/** The default base URL (the host root, as usual for this API). */
export const ANTHROPIC_DEFAULT_BASE_URL = "https://api.anthropic.com";

/**
 * The API version header Verdict speaks: the one the official TypeScript SDK sends (still
 * `2023-06-01`; newer features come as `anthropic-beta` headers, not new versions).
 */
export const ANTHROPIC_VERSION = "2023-06-01";

/** How to reach the Messages API. */
export interface AnthropicOptions {
  /** The model name, such as `claude-sonnet-4-5`. */
  model: string;
  /** The host root. */
  baseUrl: string;
  /** The API key (sent as `x-api-key`). */
  apiKey: string;
  /**
   * Extra request headers (`--header`, such as `anthropic-beta`), by lower-case name; they win
   * over Verdict's own.
   */
  headers?: Record<string, string>;
}

type Block = Record<string, unknown>;

/**
 * A model behind the Anthropic Messages API.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { anthropicModel } from "./anthropic.ts";
 * import { LogicalClock } from "../core/clock.ts";
 * import { SplitMix64 } from "../core/rng.ts";
 * import { DEFAULT_RETRY } from "./_http.ts";
 * const model = anthropicModel(
 *   { model: "claude-sonnet-4-5", baseUrl: "http://127.0.0.1:8001", apiKey: "k" },
 *   { clock: new LogicalClock(), rng: new SplitMix64(1), retry: DEFAULT_RETRY, secrets: [] },
 * );
 * assert(model.spec === "anthropic:claude-sonnet-4-5");
 * ```
 */
export function anthropicModel(options: AnthropicOptions, http: HttpDeps): Model {
  const url = `${options.baseUrl.replace(/\/+$/, "")}/v1/messages`;
  const extra = options.headers ?? {};
  const secrets = endpointSecrets(http.secrets, options);
  const headers = {
    "x-api-key": options.apiKey,
    "anthropic-version": ANTHROPIC_VERSION,
    ...extra,
  };
  return {
    spec: `anthropic:${options.model}`,
    remote: true,
    async complete(request, { signal }) {
      const body = await postJson({
        provider: "anthropic",
        url,
        headers,
        body: withPromptCache(toAnthropicRequest(options.model, request)),
        signal,
      }, { ...http, secrets });
      // An endpoint can echo the key: nothing past this point (the agent, the record) sees it.
      return redactResponse(fromAnthropicResponse(body), secrets);
    },
  };
}

/**
 * The Messages request body: consecutive turns of the same role are merged, because the API
 * requires user and assistant turns to alternate, and tool results come first in their turn.
 * `temperature` is sent when the request's parameters hold one.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { toAnthropicRequest } from "./anthropic.ts";
 * const body = toAnthropicRequest("m", {
 *   system: "s", messages: [{ role: "user", content: "a" }, { role: "user", content: "b" }],
 *   tools: [], maxOutputTokens: 10,
 * });
 * assert((body.messages as unknown[]).length === 1 && body.system === "s");
 * ```
 */
export function toAnthropicRequest(model: string, request: ModelRequest): Record<string, unknown> {
  const turns: { role: "user" | "assistant"; content: Block[] }[] = [];
  const push = (role: "user" | "assistant", blocks: Block[]) => {
    const last = turns.at(-1);
    if (last?.role === role) {
      // Tool results must lead a user turn; text that arrives before them goes after.
      last.content = role === "user"
        ? [
          ...last.content.filter(isToolResult),
          ...blocks.filter(isToolResult),
          ...last.content.filter((block) => !isToolResult(block)),
          ...blocks.filter((block) => !isToolResult(block)),
        ]
        : [...last.content, ...blocks];
    } else turns.push({ role, content: blocks });
  };
  for (const message of request.messages) push(...toBlocks(message));
  return {
    model,
    max_tokens: request.maxOutputTokens,
    system: request.system,
    messages: turns,
    ...(request.parameters?.temperature !== undefined
      ? { temperature: request.parameters.temperature }
      : {}),
    ...(request.tools.length > 0
      ? {
        tools: request.tools.map((tool) => ({
          name: tool.name,
          description: tool.description,
          input_schema: tool.parameters,
        })),
      }
      : {}),
  };
}

function isToolResult(block: Block): boolean {
  return block.type === "tool_result";
}

function toBlocks(message: Message): ["user" | "assistant", Block[]] {
  switch (message.role) {
    case "user":
      return ["user", [{ type: "text", text: message.content || "(empty)" }]];
    case "assistant": {
      const blocks: Block[] = message.content ? [{ type: "text", text: message.content }] : [];
      for (const call of message.toolCalls) {
        blocks.push({
          type: "tool_use",
          id: call.id,
          name: call.name,
          input: parseInput(call.arguments),
        });
      }
      return ["assistant", blocks.length > 0 ? blocks : [{ type: "text", text: "(empty)" }]];
    }
    case "tool":
      return ["user", [{
        type: "tool_result",
        tool_use_id: message.toolCallId,
        content: message.content,
        ...(message.isError ? { is_error: true } : {}),
      }]];
  }
}

function parseInput(text: string): unknown {
  try {
    const value = JSON.parse(text);
    return value !== null && typeof value === "object" && !Array.isArray(value) ? value : {};
  } catch {
    return {}; // the model's invalid arguments were answered with an error; the API needs an object
  }
}

/**
 * Reads a Messages response body.
 *
 * @throws {MalformedResponse} when `content` or a `tool_use` block's fields are missing.
 */
export function fromAnthropicResponse(body: unknown): ModelResponse {
  const malformed = (problem: string) => new MalformedResponse("anthropic", problem);
  const content = (body as { content?: unknown })?.content;
  if (!Array.isArray(content)) throw malformed("no content in the response");
  let text = "";
  const toolCalls: ToolCall[] = [];
  content.forEach((raw, index) => {
    const block = raw as Block;
    if (block?.type === "text" && typeof block.text === "string") text += block.text;
    else if (block?.type === "tool_use") {
      if (typeof block.id !== "string" || typeof block.name !== "string") {
        throw malformed(`content[${index}] is a tool_use without an id or a name`);
      }
      toolCalls.push({
        id: block.id,
        name: block.name,
        arguments: JSON.stringify(block.input ?? {}),
      });
    }
  });
  const usage = (body as { usage?: Record<string, unknown> }).usage ?? {};
  const stop = (body as { stop_reason?: unknown }).stop_reason;
  const cacheWrites = count(usage.cache_creation_input_tokens);
  return {
    content: text,
    toolCalls,
    finish: stop === "refusal"
      ? "refusal"
      : toolCalls.length > 0
      ? "tool_calls"
      : stop === "max_tokens"
      ? "length"
      : "stop",
    usage: {
      input: count(usage.input_tokens),
      cachedInput: count(usage.cache_read_input_tokens),
      ...(cacheWrites > 0 ? { cacheWriteInput: cacheWrites } : {}),
      output: count(usage.output_tokens),
    },
  };
}

function count(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : 0;
}
