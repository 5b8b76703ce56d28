/**
 * Counting tokens without a tokenizer: a heuristic (about four bytes of UTF-8 per token, plus a
 * little per message) behind an interface, so an exact tokenizer can be swapped in. Counts of
 * messages are cached per message object, so a long history costs nothing to re-count.
 *
 * @module
 */
import type { Message, ModelRequest, ToolSchema } from "./model.ts";

/** Counts tokens of text. */
export interface TokenCounter {
  /** Tokens of a piece of text. */
  count(text: string): number;
}

/** Tokens each message (and the system prompt, and each tool schema) costs besides its text. */
export const MESSAGE_OVERHEAD = 4;
const encoder = new TextEncoder();

/**
 * About four UTF-8 bytes per token: close for English and code, pessimistic for CJK text.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { heuristicCounter } from "./tokens.ts";
 * assert(heuristicCounter.count("abcdefgh") === 2);
 * ```
 */
export const heuristicCounter: TokenCounter = {
  count(text) {
    // ASCII is the common case: its byte length is its length.
    const bytes = /[\u0080-\uffff]/.test(text) ? encoder.encode(text).length : text.length;
    return Math.ceil(bytes / 4);
  },
};

const messageCache = new WeakMap<Message, number>();
const toolsCache = new WeakMap<readonly ToolSchema[], number>();

/**
 * Tokens of one message, its tool calls included.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { heuristicCounter, messageTokens } from "./tokens.ts";
 * assert(messageTokens(heuristicCounter, { role: "user", content: "abcd" }) === 5);
 * ```
 */
export function messageTokens(counter: TokenCounter, message: Message): number {
  const cached = counter === heuristicCounter ? messageCache.get(message) : undefined;
  if (cached !== undefined) return cached;
  let tokens = MESSAGE_OVERHEAD + counter.count(message.content);
  if (message.role === "assistant") {
    for (const call of message.toolCalls) {
      tokens += MESSAGE_OVERHEAD + counter.count(call.name) + counter.count(call.arguments);
    }
  }
  if (counter === heuristicCounter) messageCache.set(message, tokens);
  return tokens;
}

/** Tokens of the tool schemas. */
export function toolTokens(counter: TokenCounter, tools: readonly ToolSchema[]): number {
  const cached = counter === heuristicCounter ? toolsCache.get(tools) : undefined;
  if (cached !== undefined) return cached;
  const tokens = tools.reduce(
    (sum, tool) => sum + MESSAGE_OVERHEAD + counter.count(JSON.stringify(tool)),
    0,
  );
  if (counter === heuristicCounter) toolsCache.set(tools, tokens);
  return tokens;
}

/**
 * Tokens of a whole request as sent: system prompt, messages and tool schemas (not the
 * reserved output).
 */
export function requestTokens(counter: TokenCounter, request: ModelRequest): number {
  let tokens = MESSAGE_OVERHEAD + counter.count(request.system) +
    toolTokens(counter, request.tools);
  for (const message of request.messages) tokens += messageTokens(counter, message);
  return tokens;
}
