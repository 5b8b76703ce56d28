/**
 * A request body in a normal form for replay: its JSON with the fields an agent varies from run
 * to run (user and session ids, cache keys) masked, so that two runs that asked the same thing
 * compare equal and anything else they sent still has to match. The masked fields are listed per
 * format in {@linkcode VOLATILE_REQUEST_FIELDS}; nothing else is ignored.
 *
 * @module
 */
import { canonicalJson } from "../core/canonical_json.ts";
import { type Sha256Hex, sha256Hex } from "../core/hash.ts";
import type { WireFormat } from "./gateway.ts";

/**
 * The fields masked before requests are compared, per format, as dotted paths (`*` stands for any
 * key or array index). Each is an id or key that carries no part of the conversation:
 * - `user`, `safety_identifier`: an end-user id (OpenAI);
 * - `prompt_cache_key`: a cache-routing key, which agents such as Codex CLI set to a per-session
 *   id (OpenAI);
 * - `metadata`: free key-value tags an agent attaches, such as a session id (OpenAI);
 * - `metadata.user_id`: the user and session id Claude Code sends (Anthropic).
 */
export const VOLATILE_REQUEST_FIELDS: { readonly [F in WireFormat]: readonly string[] } = {
  chat_completions: ["user", "safety_identifier", "prompt_cache_key", "metadata"],
  responses: ["user", "safety_identifier", "prompt_cache_key", "metadata"],
  messages: ["metadata.user_id"],
};

/** What a masked field's value becomes. */
export const MASKED = "(masked: varies run to run)";

/**
 * A request body with its format's volatile fields masked: the parsed JSON, or the text itself
 * when the body is not JSON.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MASKED, normalizedRequest } from "./request_fingerprint.ts";
 * const body = JSON.stringify({ model: "m", metadata: { user_id: "session-42" } });
 * assert.deepEqual(normalizedRequest("messages", body), { model: "m", metadata: { user_id: MASKED } });
 * ```
 */
export function normalizedRequest(format: WireFormat, body: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return body;
  }
  for (const path of VOLATILE_REQUEST_FIELDS[format]) value = masked(value, path.split("."));
  return value;
}

/**
 * The sha256 of a request's normal form (canonical JSON).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { requestFingerprint } from "./request_fingerprint.ts";
 * assert.equal(
 *   requestFingerprint("chat_completions", '{"model":"m","user":"a"}'),
 *   requestFingerprint("chat_completions", '{"user":"b", "model":"m"}'),
 * );
 * ```
 */
export function requestFingerprint(format: WireFormat, body: string): Sha256Hex {
  return sha256Hex(canonicalJson(normalizedRequest(format, body)));
}

/** `value` with the field at `path` masked where present (a copy; the input is not changed). */
function masked(value: unknown, path: readonly string[]): unknown {
  if (value === null || typeof value !== "object") return value;
  const [head, ...rest] = path;
  const at = (item: unknown) => rest.length === 0 ? MASKED : masked(item, rest);
  if (Array.isArray(value)) {
    return head === "*" ? value.map(at) : value;
  }
  const record = value as Record<string, unknown>;
  if (head === "*") {
    return Object.fromEntries(Object.entries(record).map(([key, item]) => [key, at(item)]));
  }
  return Object.hasOwn(record, head) ? { ...record, [head]: at(record[head]) } : record;
}
