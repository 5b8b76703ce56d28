/**
 * An upper bound of the input tokens a call can be charged, before it is sent: what a budget
 * reserves for its input. No token is shorter than a byte, so a body's bytes bound its tokens;
 * and a call that goes on the conversation of an answered one (the same system prompt and tools,
 * that call's messages first) is bounded tighter by that call's real input plus the bytes its body
 * grew by, with a margin for the turn markers around the new messages. An agent whose requests
 * are large (Claude Code sends about 50 KB of system prompt and tools, about 10,000 tokens) so
 * reserves close to what it uses from its second call on, not four times as much.
 *
 * @module
 */
import { utf8Length } from "../core/utf8_length.ts";
import type { Usage } from "../model/model.ts";
import { totalInput } from "../model/model.ts";
import type { GatewayCall } from "./gateway.ts";

/** What an answered call leaves for bounding the next: the call, and its real input. */
export interface AnsweredInput {
  /** The call as the agent made it. */
  call: GatewayCall;
  /** The input tokens it was charged. */
  tokens: number;
}

/** Tokens allowed for the turn markers and the token boundaries of a continued conversation. */
export const CONTINUATION_MARGIN = 256;

/**
 * The input bound of `call`, given the last answered call (or null).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { answeredInput, inputBound } from "./input_bound.ts";
 * const call = (messages: string[]) => {
 *   const request = { system: "s", tools: [], maxOutputTokens: 10,
 *     messages: messages.map((content) => ({ role: "user" as const, content })) };
 *   return { number: 1, format: "messages" as const, stream: false, model: "m",
 *     body: JSON.stringify(request), request };
 * };
 * const first = call(["x".repeat(4000)]);
 * assert.equal(inputBound(first, null), first.body.length);
 * const answered = answeredInput(first, { input: 1000, cachedInput: 0, output: 5 });
 * const next = call(["x".repeat(4000), "y"]);
 * assert.equal(inputBound(next, answered), 1000 + (next.body.length - first.body.length) + 256);
 * ```
 */
export function inputBound(call: GatewayCall, last: AnsweredInput | null): number {
  return conversationInputBound(
    callInput(call),
    last === null ? null : { input: callInput(last.call), tokens: last.tokens },
  );
}

/** A model call as its input's bound sees it, whoever makes it (the gateway, the loop). */
export interface BoundedInput {
  /** What must be the same for a call to go on another's conversation: model, system, tools. */
  frame: string;
  /** The conversation's messages. */
  messages: readonly unknown[];
  /** The bytes of the request it is sent as. */
  bytes: number;
}

/**
 * The input bound of a call given the last answered one (its input's real tokens), or null: its
 * bytes, or, when it goes on that call's conversation, that call's tokens plus the bytes it grew
 * by and {@linkcode CONTINUATION_MARGIN}, whichever is less.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { conversationInputBound } from "./input_bound.ts";
 * const first = { frame: "f", messages: ["a"], bytes: 4000 };
 * const next = { frame: "f", messages: ["a", "b"], bytes: 4100 };
 * assert.equal(conversationInputBound(next, null), 4100);
 * assert.equal(conversationInputBound(next, { input: first, tokens: 1000 }), 1000 + 100 + 256);
 * assert.equal(conversationInputBound({ ...next, frame: "g" }, { input: first, tokens: 1000 }), 4100);
 * ```
 */
export function conversationInputBound(
  now: BoundedInput,
  last: { input: BoundedInput; tokens: number } | null,
): number {
  if (last === null || now.frame !== last.input.frame) return now.bytes;
  const before = last.input.messages;
  const continued = now.messages.length >= before.length &&
    before.every((message, index) =>
      JSON.stringify(message) === JSON.stringify(now.messages[index])
    );
  if (!continued) return now.bytes;
  const grown = Math.max(0, now.bytes - last.input.bytes);
  return Math.min(now.bytes, last.tokens + grown + CONTINUATION_MARGIN);
}

/**
 * What an answered call leaves for bounding the next.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { answeredInput } from "./input_bound.ts";
 * const request = { system: "", messages: [], tools: [], maxOutputTokens: 1 };
 * const call = { number: 1, format: "messages" as const, stream: false, model: "m", body: "{}", request };
 * assert.equal(answeredInput(call, { input: 3, cachedInput: 4, output: 1 }).tokens, 7);
 * ```
 */
export function answeredInput(call: GatewayCall, usage: Usage): AnsweredInput {
  return { call, tokens: totalInput(usage) };
}

// The model is in the frame too: another model's tokenizer counts the same text differently.
function callInput(call: GatewayCall): BoundedInput {
  return {
    frame: JSON.stringify([call.model, call.request.system, call.request.tools]),
    messages: call.request.messages,
    bytes: utf8Length(call.body),
  };
}
