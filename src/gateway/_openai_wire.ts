/**
 * What the two OpenAI formats share: their error body, and usage counted their way (prompt tokens
 * include cached ones; OpenAI has no cache-write count, so cache writes are counted as input).
 *
 * @module
 */
import { totalInput, type Usage } from "../model/model.ts";
import type { GatewayAnswer } from "./gateway.ts";
import { JSON_TYPE, type WireErrorKind } from "./wire_codec.ts";

const TYPES: Record<WireErrorKind, [type: string, code: string | null]> = {
  invalid_request: ["invalid_request_error", null],
  authentication: ["invalid_request_error", "invalid_api_key"],
  not_found: ["invalid_request_error", "unknown_url"],
  upstream: ["server_error", null],
};

/**
 * An OpenAI error answer: `{"error": {"message", "type", "param", "code"}}`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openAiError } from "./_openai_wire.ts";
 * assert.equal(JSON.parse(openAiError(400, "invalid_request", "model is missing", "model").body).error.param, "model");
 * ```
 */
export function openAiError(
  status: number,
  kind: WireErrorKind,
  message: string,
  field?: string,
): GatewayAnswer {
  const [type, code] = TYPES[kind];
  return {
    status,
    contentType: JSON_TYPE,
    body: JSON.stringify({ error: { message, type, param: field ?? null, code } }),
    usage: null,
  };
}

/**
 * Total input tokens (cache reads and writes included) and cache reads, as OpenAI counts them.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openAiInput } from "./_openai_wire.ts";
 * assert.deepEqual(openAiInput({ input: 5, cachedInput: 2, cacheWriteInput: 1, output: 0 }), { total: 8, cached: 2 });
 * ```
 */
export function openAiInput(usage: Usage): { total: number; cached: number } {
  return { total: totalInput(usage), cached: usage.cachedInput };
}
