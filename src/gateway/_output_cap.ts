/**
 * The output cap of a request body, by wire format, read and rewritten on the body's JSON: the cap
 * the agent asked for (Chat Completions' `max_completion_tokens` or `max_tokens`, Responses'
 * `max_output_tokens`, Messages' `max_tokens`), and the body the live backend forwards with a
 * lower one, where the trial's budget affords less. A Chat Completions stream that did not ask for
 * its usage is made to (`stream_options.include_usage`), so that every call is metered.
 *
 * @module
 */
import type { WireFormat } from "./gateway.ts";

type Json = Record<string, unknown>;

/**
 * The cap the body asks for, or null when it names none (the provider's own default applies).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { requestedOutputCap } from "./_output_cap.ts";
 * assert.equal(requestedOutputCap("messages", '{"max_tokens": 32000}'), 32000);
 * assert.equal(requestedOutputCap("chat_completions", "{}"), null);
 * ```
 */
export function requestedOutputCap(format: WireFormat, body: string): number | null {
  return outputCapOf(format, parsedObject(body));
}

/**
 * The cap a parsed body asks for, or null when it names none.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { outputCapOf } from "./_output_cap.ts";
 * assert.equal(outputCapOf("responses", { max_output_tokens: 900 }), 900);
 * assert.equal(outputCapOf("chat_completions", { max_tokens: 50 }), 50);
 * ```
 */
export function outputCapOf(format: WireFormat, parsed: unknown): number | null {
  const root = isObject(parsed) ? parsed : null;
  const value = root?.[capField(format, root)];
  return typeof value === "number" && Number.isSafeInteger(value) ? value : null;
}

/**
 * The body to send upstream: with `cap` in the format's cap field when given, and, for a Chat
 * Completions stream, asking for the closing usage chunk. The body is left as it is (byte for
 * byte) when neither applies.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { upstreamBody } from "./_output_cap.ts";
 * const body = upstreamBody("messages", '{"max_tokens":32000}', { cap: 900, askUsage: false });
 * assert.equal(JSON.parse(body).max_tokens, 900);
 * ```
 */
export function upstreamBody(
  format: WireFormat,
  body: string,
  { cap, askUsage }: { cap?: number; askUsage: boolean },
): string {
  if (cap === undefined && !askUsage) return body;
  const root = parsedObject(body);
  if (root === null) return body;
  if (cap !== undefined) {
    root[capField(format, root)] = cap;
    if (format === "messages") fitThinking(root, cap);
  }
  if (askUsage) {
    const options = isObject(root.stream_options) ? root.stream_options : {};
    root.stream_options = { ...options, include_usage: true };
  }
  return JSON.stringify(root);
}

/**
 * A Chat Completions event stream without what asking for usage added to it: the closing chunk
 * that carries only the usage, and the `usage` field of the other chunks. Blocks without one are
 * kept byte for byte.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { withoutUsageChunks } from "./_output_cap.ts";
 * const stream = 'data: {"choices":[{"delta":{}}],"usage":null}\n\n' +
 *   'data: {"choices":[],"usage":{"prompt_tokens":3}}\n\ndata: [DONE]\n\n';
 * assert.equal(withoutUsageChunks(stream), 'data: {"choices":[{"delta":{}}]}\n\ndata: [DONE]\n\n');
 * ```
 */
export function withoutUsageChunks(stream: string): string {
  const blocks = stream.replaceAll("\r\n", "\n").split(/\n\n/);
  const kept: string[] = [];
  for (const block of blocks) {
    const data = /^data: ?(\{.*\})$/s.exec(block)?.[1];
    const chunk = data === undefined ? null : parsedObject(data);
    if (chunk === null || !("usage" in chunk)) {
      kept.push(block);
      continue;
    }
    if (Array.isArray(chunk.choices) && chunk.choices.length === 0) continue;
    delete chunk.usage;
    kept.push(`data: ${JSON.stringify(chunk)}`);
  }
  return kept.join("\n\n");
}

/**
 * Anthropic refuses `max_tokens` at or below `thinking.budget_tokens`, and a thinking budget under
 * 1,024: a lowered cap takes the thinking budget down with it, or turns thinking off.
 */
function fitThinking(root: Json, cap: number): void {
  const thinking = root.thinking;
  if (!isObject(thinking) || thinking.type !== "enabled") return;
  const budget = thinking.budget_tokens;
  if (typeof budget !== "number" || budget < cap) return;
  if (cap - 1 >= 1024) root.thinking = { ...thinking, budget_tokens: cap - 1 };
  else delete root.thinking;
}

function capField(format: WireFormat, root: Json | null): string {
  if (format === "messages") return "max_tokens";
  if (format === "responses") return "max_output_tokens";
  return root?.max_tokens != null && root.max_completion_tokens == null
    ? "max_tokens"
    : "max_completion_tokens";
}

function parsedObject(text: string): Json | null {
  try {
    const value: unknown = JSON.parse(text);
    return isObject(value) ? value : null;
  } catch {
    return null;
  }
}

function isObject(value: unknown): value is Json {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
