/**
 * The tokens an answer used, read from its raw body in its wire format, JSON or a whole event
 * stream, counted as the provider clients count them (`openai.ts`, `anthropic.ts`): OpenAI's
 * prompt tokens include the cached ones, which are split off; Anthropic's cache reads and cache
 * writes are counted apart from `input_tokens`.
 *
 * @module
 */
import type { Usage } from "../model/model.ts";
import type { WireFormat } from "./gateway.ts";
import { sseData } from "./sse.ts";

type Json = Record<string, unknown>;

/**
 * The usage of an answer body, or null when it has none (an error, or a stream cut short).
 *
 * - Chat Completions: `usage` (`prompt_tokens`, `completion_tokens`,
 *   `prompt_tokens_details.cached_tokens`); in a stream, the last chunk that carries a usage.
 * - Responses: the response's `usage` (`input_tokens`, `output_tokens`,
 *   `input_tokens_details.cached_tokens`); in a stream, that of `response.completed` (or
 *   `response.incomplete`/`response.failed`, which end a stream the same way).
 * - Messages: `usage` (`input_tokens`, `output_tokens`, `cache_read_input_tokens`,
 *   `cache_creation_input_tokens`); in a stream, `message_start`'s usage with each field that a
 *   `message_delta` carries replacing it (the delta's counts are cumulative).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { answerUsage } from "./answer_usage.ts";
 * const body = JSON.stringify({
 *   usage: { prompt_tokens: 10, completion_tokens: 3, prompt_tokens_details: { cached_tokens: 4 } },
 * });
 * assert.deepEqual(answerUsage("chat_completions", "application/json", body), {
 *   input: 6, cachedInput: 4, output: 3,
 * });
 * ```
 */
export function answerUsage(format: WireFormat, contentType: string, body: string): Usage | null {
  const stream = contentType.toLowerCase().startsWith("text/event-stream");
  switch (format) {
    case "chat_completions": {
      const usage = stream
        ? sseData(body).map((chunk) => chunk.usage).findLast(isObject)
        : parsed(body)?.usage;
      return isObject(usage)
        ? openAiUsage(usage.prompt_tokens, usage.completion_tokens, usage.prompt_tokens_details)
        : null;
    }
    case "responses": {
      const response = stream
        ? sseData(body).findLast((event) => RESPONSE_ENDS.has(String(event.type)))?.response
        : parsed(body);
      const usage = isObject(response) ? response.usage : undefined;
      return isObject(usage)
        ? openAiUsage(usage.input_tokens, usage.output_tokens, usage.input_tokens_details)
        : null;
    }
    case "messages":
      return stream ? messagesStreamUsage(sseData(body)) : messagesUsage(parsed(body)?.usage);
  }
}

/**
 * The stream events that end a Responses stream, each carrying the final response.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { RESPONSE_ENDS } from "./answer_usage.ts";
 * assert(RESPONSE_ENDS.has("response.completed"));
 * ```
 */
export const RESPONSE_ENDS: ReadonlySet<string> = new Set([
  "response.completed",
  "response.incomplete",
  "response.failed",
]);

function openAiUsage(input: unknown, output: unknown, details: unknown): Usage {
  const cached = count(isObject(details) ? details.cached_tokens : undefined);
  return { input: Math.max(0, count(input) - cached), cachedInput: cached, output: count(output) };
}

function messagesUsage(usage: unknown): Usage | null {
  if (!isObject(usage)) return null;
  const cacheWrites = count(usage.cache_creation_input_tokens);
  return {
    input: count(usage.input_tokens),
    cachedInput: count(usage.cache_read_input_tokens),
    ...(cacheWrites > 0 ? { cacheWriteInput: cacheWrites } : {}),
    output: count(usage.output_tokens),
  };
}

function messagesStreamUsage(events: Json[]): Usage | null {
  const start = events.find((event) => event.type === "message_start")?.message;
  if (!isObject(start) || !isObject(start.usage)) return null;
  const usage: Json = { ...start.usage };
  for (const event of events) {
    if (event.type !== "message_delta" || !isObject(event.usage)) continue;
    for (const [field, value] of Object.entries(event.usage)) {
      if (value !== null && value !== undefined) usage[field] = value;
    }
  }
  return messagesUsage(usage);
}

function parsed(text: string): Json | undefined {
  try {
    const value = JSON.parse(text);
    return isObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

function isObject(value: unknown): value is Json {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function count(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : 0;
}
