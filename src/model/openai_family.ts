/**
 * What an OpenAI model name says about the request it takes. Reasoning models (the o1, o3, o4
 * and gpt-5 families) want the system prompt as a `developer` message, take `reasoning_effort`
 * and refuse `temperature`; chat models (gpt-4o, gpt-4.1, gpt-3.5, gpt-5-chat, ...) refuse
 * `reasoning_effort`. Any other name (a local model, a gateway's or a deployment's own name) is
 * unknown: it gets the plain `system` role, and the options the user passed are sent as given.
 * The name is read after any vendor prefix (`openai/o3-mini`, as gateways write it).
 *
 * @module
 */

/** A model's family, as its name tells it. */
export type OpenAiFamily = "reasoning" | "chat" | "unknown";

/** The families' name patterns, matched against the name after its last `/`. */
const REASONING = /^(o[1-9]\d*|gpt-5(?!-chat))([-.:_]|$)/i;
const CHAT = /^(gpt-4|gpt-3\.5|chatgpt-|gpt-5-chat)/i;

/**
 * The family of an OpenAI model name.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openAiFamily } from "./openai_family.ts";
 * assert.equal(openAiFamily("o3-mini"), "reasoning");
 * assert.equal(openAiFamily("openai/gpt-5"), "reasoning");
 * assert.equal(openAiFamily("gpt-4o"), "chat");
 * assert.equal(openAiFamily("qwen3:8b"), "unknown");
 * ```
 */
export function openAiFamily(model: string): OpenAiFamily {
  const name = model.slice(model.lastIndexOf("/") + 1);
  if (REASONING.test(name)) return "reasoning";
  return CHAT.test(name) ? "chat" : "unknown";
}
