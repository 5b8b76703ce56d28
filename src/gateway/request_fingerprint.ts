/**
 * A request body in a normal form for replay, so that two runs that asked the same thing compare
 * equal and anything else they sent still has to match:
 * - the fields an agent varies from run to run (user, session, turn and message ids, cache keys),
 *   the facts of the day and the machine it writes into its prompt (today's date, the kernel's
 *   version), and the random ids and timings its own tools add to their output are masked by
 *   the named rules of {@linkcode REPLAY_MASKS} its agent kind needs;
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
 * A named rule that masks what an agent varies from run to run although it did the same: either
 * a field of the request (a dotted path per wire format, `*` standing for any key or array index)
 * or a text pattern, masked in every string of the request.
 */
export interface ReplayMask {
  /** What it masks and why, for `show` and the docs. */
  what: string;
  /** Dotted paths per wire format. */
  fields?: { readonly [F in WireFormat]?: readonly string[] };
  /** A pattern whose matches are masked in every string. */
  text?: RegExp;
}

/**
 * Every mask a replay may apply, by name. Each agent kind names the ones its requests need
 * (recorded with its session as `agent.cmd`'s `replay_masks`); a session recorded before they
 * were named gets all of them.
 */
export const REPLAY_MASKS = {
  "end-user-id": {
    what: "an end-user id (`user`, `safety_identifier`)",
    fields: {
      chat_completions: ["user", "safety_identifier"],
      responses: ["user", "safety_identifier"],
    },
  },
  "prompt-cache-key": {
    what: "a cache-routing key (`prompt_cache_key`), which Codex CLI sets to a per-session id",
    fields: { chat_completions: ["prompt_cache_key"], responses: ["prompt_cache_key"] },
  },
  "request-metadata": {
    what: "free key-value tags an agent attaches (`metadata`), such as a session id",
    fields: { chat_completions: ["metadata"], responses: ["metadata"] },
  },
  "claude-code-user-id": {
    what: "the user and session id Claude Code sends (`metadata.user_id`)",
    fields: { messages: ["metadata.user_id"] },
  },
  "codex-client-metadata": {
    what: "Codex CLI's installation, session, thread and turn ids (`client_metadata`)",
    fields: { responses: ["client_metadata"] },
  },
  "input-item-ids": {
    what: "the ids of the items an agent sends (`input.*.id`): Codex CLI makes a new time-based " +
      "one for each message it writes",
    fields: { responses: ["input.*.id"] },
  },
  "todays-date": {
    what: 'the date Claude Code writes into its prompt ("Today\'s date is ..."): its runtime ' +
      "cannot run under libfaketime, so its clock is the container's",
    text: /(?<=Today's date is )\d{4}-\d{2}-\d{2}/g,
  },
  "current-date": {
    what: "the date Codex CLI writes into its prompt (`<current_date>`): its binary is static, " +
      "so libfaketime cannot set its clock",
    text: /(?<=<current_date>)[^<]*(?=<\/current_date>)/g,
  },
  "os-version": {
    what: 'the kernel\'s version, which an agent writes into its prompt ("OS Version: ...")',
    text: /(?<=OS Version: )[^\n"]*/g,
  },
  "chunk-id": {
    what: "the random id Codex CLI's shell tool adds to a command's output (\"Chunk ID: ...\")",
    text: /(?<=Chunk ID: )[0-9a-f]+/g,
  },
  "wall-time": {
    what: 'the time Codex CLI\'s shell tool measured a command at ("Wall time: ... seconds")',
    text: /(?<=Wall time: )[\d.]+(?= seconds)/g,
  },
} as const satisfies Record<string, ReplayMask>;

/** The name of a replay mask. */
export type ReplayMaskName = keyof typeof REPLAY_MASKS;

/** Every mask's name: what a session recorded before masks were named is compared under. */
export const ALL_REPLAY_MASKS: readonly ReplayMaskName[] = Object.keys(
  REPLAY_MASKS,
) as ReplayMaskName[];

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
export function normalizedRequest(
  format: WireFormat,
  body: string,
  masks: readonly ReplayMaskName[] = ALL_REPLAY_MASKS,
): unknown {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return body;
  }
  const rules: readonly ReplayMask[] = masks.map((name) => REPLAY_MASKS[name]);
  for (const rule of rules) {
    for (const path of rule.fields?.[format] ?? []) value = masked(value, path.split("."));
  }
  const patterns = rules.flatMap((rule) => rule.text === undefined ? [] : [rule.text]);
  return inCallOrder(format, withoutVolatileText(value, patterns));
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
export function requestFingerprint(
  format: WireFormat,
  body: string,
  masks: readonly ReplayMaskName[] = ALL_REPLAY_MASKS,
): Sha256Hex {
  return sha256Hex(canonicalJson(normalizedRequest(format, body, masks)));
}

/** `value` with every string's matches of `patterns` masked. */
function withoutVolatileText(value: unknown, patterns: readonly RegExp[]): unknown {
  if (patterns.length === 0) return value;
  if (typeof value === "string") {
    return patterns.reduce((text, pattern) => text.replace(pattern, MASKED), value);
  }
  if (Array.isArray(value)) return value.map((item) => withoutVolatileText(item, patterns));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, withoutVolatileText(item, patterns)]),
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
