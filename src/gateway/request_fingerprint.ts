/**
 * A request body in a normal form for replay, so that two runs that asked the same thing compare
 * equal and anything else they sent still has to match:
 * - the fields an agent varies from run to run (user, session, turn and message ids, cache keys)
 *   are masked, per format: {@linkcode VOLATILE_REQUEST_FIELDS};
 * - the facts of the day and the machine an agent writes into its prompt (today's date, the
 *   kernel's version), and the random ids and timings its own tools add to their output, are
 *   masked wherever they appear: {@linkcode VOLATILE_TEXT};
 * - the results of parallel tool calls, which an agent appends as each finishes, are put in the
 *   order of their call ids, and the caching mark Claude Code puts on a conversation's newest
 *   block (`cache_control`, which follows that order) is left out of its messages.
 * Nothing else is ignored.
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
 * - `metadata.user_id`: the user and session id Claude Code sends (Anthropic);
 * - `client_metadata`: Codex CLI's installation, session, thread and turn ids (OpenAI Responses);
 * - `input.*.id`: the ids of the items an agent sends (Codex CLI makes a new time-based id for each
 *   message it writes; the ids of the model's own items come back as the record has them).
 */
export const VOLATILE_REQUEST_FIELDS: { readonly [F in WireFormat]: readonly string[] } = {
  chat_completions: ["user", "safety_identifier", "prompt_cache_key", "metadata"],
  responses: [
    "user",
    "safety_identifier",
    "prompt_cache_key",
    "metadata",
    "client_metadata",
    "input.*.id",
  ],
  messages: ["metadata.user_id"],
};

/**
 * Text that differs from run to run although the agent did the same, masked in every string of a
 * request: the facts of the day and the machine an agent writes into its prompt (Claude Code's
 * "Today's date is ..." and "OS Version: ...", Codex CLI's `<current_date>`), and what an agent's
 * own tools add to a command's output (Codex CLI's random "Chunk ID" and measured "Wall time").
 */
export const VOLATILE_TEXT: readonly RegExp[] = [
  /(?<=Today's date is )\d{4}-\d{2}-\d{2}/g,
  /(?<=<current_date>)[^<]*(?=<\/current_date>)/g,
  /(?<=OS Version: )[^\n"]*/g,
  /(?<=Chunk ID: )[0-9a-f]+/g,
  /(?<=Wall time: )[\d.]+(?= seconds)/g,
];

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
  return inCallOrder(format, withoutVolatileText(value));
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

/** `value` with every string's volatile text masked. */
function withoutVolatileText(value: unknown): unknown {
  if (typeof value === "string") {
    return VOLATILE_TEXT.reduce((text, pattern) => text.replace(pattern, MASKED), value);
  }
  if (Array.isArray(value)) return value.map(withoutVolatileText);
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, withoutVolatileText(item)]),
    );
  }
  return value;
}

/**
 * `body` with each run of tool results in the order of their call ids: Claude Code's
 * `tool_result` blocks of one message, Responses' consecutive `function_call_output` items, Chat
 * Completions' consecutive `tool` messages.
 */
function inCallOrder(format: WireFormat, body: unknown): unknown {
  if (body === null || typeof body !== "object" || Array.isArray(body)) return body;
  const record = body as Record<string, unknown>;
  if (format === "messages" && Array.isArray(record.messages)) {
    return {
      ...record,
      messages: record.messages.map((message) =>
        isRecord(message) && Array.isArray(message.content)
          ? {
            ...message,
            content: sortedRuns(
              message.content.map(withoutCacheMark),
              "tool_result",
              "tool_use_id",
            ),
          }
          : message
      ),
    };
  }
  if (format === "responses" && Array.isArray(record.input)) {
    return { ...record, input: sortedRuns(record.input, "function_call_output", "call_id") };
  }
  if (format === "chat_completions" && Array.isArray(record.messages)) {
    return { ...record, messages: sortedRuns(record.messages, "tool", "tool_call_id") };
  }
  return body;
}

/**
 * `items` with each run of consecutive items of `kind` (their `type`, or `role` for chat
 * messages) sorted by their `id` field; other items stay where they are.
 */
function sortedRuns(items: readonly unknown[], kind: string, id: string): unknown[] {
  const isKind = (item: unknown) =>
    isRecord(item) && (item.type === kind || (item.type === undefined && item.role === kind));
  const sorted: unknown[] = [];
  let run: Record<string, unknown>[] = [];
  const flush = () => {
    run.sort((a, b) => String(a[id]) < String(b[id]) ? -1 : String(a[id]) > String(b[id]) ? 1 : 0);
    sorted.push(...run);
    run = [];
  };
  for (const item of items) {
    if (isKind(item)) run.push(item as Record<string, unknown>);
    else {
      flush();
      sorted.push(item);
    }
  }
  flush();
  return sorted;
}

function withoutCacheMark(block: unknown): unknown {
  if (!isRecord(block) || !("cache_control" in block)) return block;
  const { cache_control: _, ...rest } = block;
  return rest;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
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
