/**
 * Every kind of event a session's log holds, with its payload as a zod schema: the record's
 * format, written down once. Writers build events with {@linkcode event} (the payload is checked
 * against its kind at compile time); readers get payloads back through {@linkcode last},
 * {@linkcode first} and {@linkcode readEvent}, which check them at run time, so a record in a
 * shape this version does not know is refused with its place named instead of misread.
 *
 * The payloads are the JSON a log stores, so their field names are the stored ones. Fields that
 * older records lack are optional. Changing a schema changes what old records must look like:
 * widen it (optional fields, unions), never narrow it.
 *
 * @module
 */
import { z } from "zod";
import { CorruptionError } from "../core/errors.ts";
import type { Expect, Same } from "../core/same_type.ts";
import type { StoredEvent } from "./event_log.ts";
import type { EventPayloads } from "./event_payloads.ts";
import { BUCKETS, VERDICTS } from "./trial_record.ts";

const hash = z.string();
const count = z.number().int().nonnegative();

const stopReason = z.enum([
  "completed",
  "max_steps",
  "timeout",
  "budget",
  "refused",
  "truncated",
  "error",
]);

const tokens = z.object({ input: count, output: count });

const usage = z.object({
  input: count,
  cachedInput: count,
  cacheWriteInput: count.optional(),
  output: count,
});

const toolCall = z.object({ id: z.string(), name: z.string(), arguments: z.string() });

const response = z.object({
  content: z.string(),
  toolCalls: z.array(toolCall),
  finish: z.enum(["stop", "tool_calls", "length", "refusal"]),
  usage,
});

const snapshotChange = z.object({
  path: z.string(),
  change: z.enum(["added", "removed", "modified"]),
  aspects: z.array(z.enum(["content", "mode", "type", "target"])).optional(),
});

const checkResult = z.object({ kind: z.string(), passed: z.boolean(), detail: z.string() });

const requirementResult = z.object({
  key: z.string(),
  passed: z.boolean(),
  detail: z.string(),
  modelOnly: z.boolean(),
});

const chainedScript = z.object({
  script: z.string(),
  exit_code: z.number().int(),
  timed_out: z.boolean(),
});

const verdict = z.enum(VERDICTS);
const bucket = z.enum(BUCKETS);

const counters = z.object({
  steps: count,
  toolCalls: count,
  compactions: count,
  deniedCalls: count,
  totalTokens: count,
  finished: z.boolean(),
  resumed: z.boolean(),
  /** Dollars in micro-units as a decimal string (a bigint), or null when unpriced. */
  cost_usd: z.string().nullable(),
});

const stepCall = { step: count, call_id: z.string(), tool: z.string() };

const SCHEMAS = {
  /** A trial began: which task, which repeat, which agent, on which image. */
  "trial.started": z.object({
    task: z.string(),
    repeat: count,
    agent: z.string(),
    image: z.string(),
  }),
  /** An interrupted trial went on: from which phase, in which container, from which snapshot. */
  "trial.resumed": z.union([
    z.object({ phase: z.literal("grade"), root: hash }),
    z.object({
      phase: z.enum(["agent", "seal"]),
      container: z.enum(["reused", "restored"]),
      root: hash,
    }),
  ]),
  /** The task's workspace was staged: the root of its snapshot. */
  "workspace.staged": z.object({ root: hash, entries: count }),
  /** The oracle applied the reference solution. */
  "agent.oracle": z.object({
    exit_code: z.number().int(),
    timed_out: z.boolean(),
    stdout: z.string(),
    stderr: z.string(),
  }),
  /** The nop agent did nothing. */
  "agent.nop": z.object({}),
  /** An installed agent's command ran. */
  "agent.cmd": z.object({
    command: z.string(),
    exit_code: z.number().int(),
    timed_out: z.boolean(),
    stdout: z.string(),
    stderr: z.string(),
  }),
  /** An installed agent's own transcript, read into steps. */
  "agent.transcript": z.object({
    agent: z.string(),
    steps: z.array(z.discriminatedUnion("type", [
      z.object({ type: z.literal("message"), text: z.string() }),
      z.object({
        type: z.literal("tool_call"),
        id: z.string(),
        name: z.string(),
        command: z.string().nullable(),
        input: z.string(),
      }),
      z.object({
        type: z.literal("tool_result"),
        id: z.string(),
        output: z.string(),
        is_error: z.boolean(),
        exit_code: z.number().int().nullable(),
      }),
    ])),
    duration_ms: z.number().nonnegative().nullable(),
    unread_lines: count,
  }),
  /** The loop began: its model, policy, tools, prompt and limits. */
  "loop.started": z.object({
    model: z.string(),
    policy: z.string(),
    policy_sha256: hash,
    tools: z.array(z.string()),
    system_prompt_sha256: hash,
    limits: z.record(z.string(), z.unknown()),
    context: z.record(z.string(), z.unknown()),
  }),
  /** The context was compacted before a step. */
  "context.compacted": z.object({
    step: count,
    strategy: z.enum(["truncate", "summarize"]),
    removedMessages: count,
    removedTokens: count,
    shortenedResults: count,
    tokensBefore: count,
    tokensAfter: count,
    summary: z.string().optional(),
  }),
  /** A request to the model: its fingerprint and the blob hashes of its new parts. */
  "model.request": z.object({
    step: count,
    fingerprint: hash,
    request: z.object({
      system: hash,
      tools: hash,
      max_output_tokens: count,
      parameters: z.object({
        temperature: z.number().optional(),
        reasoning_effort: z.enum(["low", "medium", "high"]).optional(),
        headers: z.record(z.string(), z.string()).optional(),
      }).optional(),
      messages: z.array(hash),
      prefix: count,
    }),
  }),
  /** A provider call failed and is tried again. */
  "model.retry": z.object({
    attempt: count,
    status: z.number().int().nullable(),
    message: z.string(),
    waitMs: count,
  }),
  /** The model's answer, and what it cost (dollars as a decimal string, or null unpriced). */
  "model.response": z.object({
    step: count,
    response,
    cost_usd: z.string().nullable(),
  }),
  /** The policy's decision on a tool call. */
  "policy.decision": z.object({
    ...stepCall,
    allowed: z.boolean(),
    rule: z.number().int().nullable(),
    reason: z.string(),
    subject: z.string(),
  }),
  /** A tool call is about to run (written before it runs, so a crash leaves its trace). */
  "tool.intent": z.object({
    ...stepCall,
    arguments: z.record(z.string(), z.unknown()),
    idempotency_key: z.string(),
    idempotent: z.boolean(),
  }),
  /** A tool call's result. */
  "tool.result": z.object({
    ...stepCall,
    content: z.string(),
    is_error: z.boolean(),
    finish: z.literal(true).optional(),
    idempotency_key: z.string().optional(),
    cached: z.literal(true).optional(),
    outcome_unknown: z.literal(true).optional(),
  }),
  /** The workspace after a tool call that changed it. */
  "workspace.snapshot": z.object({ step: count, call_id: z.string(), root: hash }),
  /** The loop stopped, and why. */
  "loop.stopped": z.object({ stop_reason: stopReason, detail: z.string().nullable() }),
  /** The agent stopped: enough to rebuild its outcome on resume. */
  "agent.stopped": z.object({
    stop_reason: stopReason,
    detail: z.string().nullable(),
    counters,
    tokens,
    exec_channel_lost: z.string().optional(),
  }),
  /** The end state was sealed: its snapshot root and how it differs from the staged one. */
  "end_state.sealed": z.object({ root: hash, changes: z.array(snapshotChange) }),
  /** Grading decided (scripts' exit codes chained; their output goes to the results only). */
  "grading.finished": z.object({
    verdict,
    bucket,
    reason: z.string(),
    checks: z.array(checkResult),
    requirements: z.array(requirementResult),
    success: chainedScript.nullable(),
    canary: chainedScript.nullable(),
    reward: z.number().optional(),
  }),
  /**
   * Closes a finished session's log, in the same transaction as the session's result, so
   * `verify` holds the result to the chain: the summary less its wall time.
   */
  "trial.verdict": z.object({
    verdict,
    bucket,
    reason: z.string(),
    steps: count,
    tokens,
    cost_usd: z.number().nullable(),
    reward: z.number().optional(),
  }),
  /** A model call an agent made through the gateway: the request body as sent. */
  "gateway.call": z.object({
    number: count,
    format: z.enum(["chat_completions", "responses", "messages"]),
    stream: z.boolean(),
    model: z.string(),
    body: z.string(),
  }),
  /** What answered a gateway call, with its tokens and cost (dollars as decimal text, or null). */
  "gateway.answer": z.object({
    number: count,
    status: z.number().int(),
    content_type: z.string(),
    body: z.string(),
    usage: usage.nullable(),
    cost_usd: z.string().nullable(),
  }),
};

// Each schema reads exactly its documented payload: a field added to, dropped from or retyped in
// either one fails `deno check`.
type _SchemasMatchPayloads = Expect<
  Same<{ [K in keyof typeof SCHEMAS]: z.output<(typeof SCHEMAS)[K]> }, EventPayloads>
>;

/**
 * Every event kind and the schema of its payload (see `event_payloads.ts` for the payloads).
 */
export const EVENT_SCHEMAS: { readonly [K in EventKind]: z.ZodType<EventPayloads[K]> } = SCHEMAS;

/** An event kind. */
export type EventKind = keyof EventPayloads;

/** The payload of a kind. */
export type EventPayload<K extends EventKind> = EventPayloads[K];

/** An event of the catalogue: a union discriminated on `kind`. */
export type CatalogueEvent = { [K in EventKind]: { kind: K; payload: EventPayload<K> } }[EventKind];

/** A stored event of a known kind, its payload checked. */
export type ReadEvent<K extends EventKind = EventKind> =
  & Omit<StoredEvent, "kind" | "payload">
  & {
    [J in K]: { kind: J; payload: EventPayload<J> };
  }[K];

/**
 * The kinds by name, so code names a kind through the catalogue rather than a string of its own.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { EVENT } from "./event_catalogue.ts";
 * assert.equal(EVENT.modelRequest, "model.request");
 * ```
 */
export const EVENT = {
  trialStarted: "trial.started",
  trialResumed: "trial.resumed",
  workspaceStaged: "workspace.staged",
  agentOracle: "agent.oracle",
  agentNop: "agent.nop",
  agentCmd: "agent.cmd",
  agentTranscript: "agent.transcript",
  loopStarted: "loop.started",
  contextCompacted: "context.compacted",
  modelRequest: "model.request",
  modelRetry: "model.retry",
  modelResponse: "model.response",
  policyDecision: "policy.decision",
  toolIntent: "tool.intent",
  toolResult: "tool.result",
  workspaceSnapshot: "workspace.snapshot",
  loopStopped: "loop.stopped",
  agentStopped: "agent.stopped",
  endStateSealed: "end_state.sealed",
  gradingFinished: "grading.finished",
  trialVerdict: "trial.verdict",
  gatewayCall: "gateway.call",
  gatewayAnswer: "gateway.answer",
} as const satisfies Record<string, EventKind>;

/**
 * The kinds whose payload `root` names a workspace snapshot (its manifest and files are blobs
 * that `verify` checks).
 */
export const SNAPSHOT_KINDS: ReadonlySet<EventKind> = new Set<EventKind>([
  EVENT.trialResumed,
  EVENT.workspaceStaged,
  EVENT.workspaceSnapshot,
  EVENT.endStateSealed,
]);

/**
 * An event to append, its payload checked against its kind by the compiler.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { event, EVENT } from "./event_catalogue.ts";
 * const stopped = event(EVENT.loopStopped, { stop_reason: "completed", detail: null });
 * assert.equal(stopped.kind, "loop.stopped");
 * ```
 */
export function event<K extends EventKind>(kind: K, payload: EventPayload<K>): CatalogueEvent {
  return { kind, payload } as CatalogueEvent;
}

/**
 * Whether a kind is one of the catalogue's.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isEventKind } from "./event_catalogue.ts";
 * assert(isEventKind("tool.result") && !isEventKind("note"));
 * ```
 */
export function isEventKind(kind: string): kind is EventKind {
  return Object.hasOwn(EVENT_SCHEMAS, kind);
}

/**
 * A stored event with its payload checked against its kind; undefined for a kind the catalogue
 * does not hold.
 *
 * @throws {CorruptionError} when the payload does not have its kind's shape, naming the session,
 * the event and the field.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openStore } from "./store.ts";
 * import { event, EVENT, readEvent } from "./event_catalogue.ts";
 * const store = openStore(":memory:");
 * store.runs.create({ id: "r", config: {}, createdAt: 0 });
 * store.runs.createSession({ id: "s", run: "r", task: "t", repeat: 0 });
 * const [stored] = store.events.append("s", [event(EVENT.agentNop, {})]);
 * assert.equal(readEvent(stored)?.kind, "agent.nop");
 * store.close();
 * ```
 */
export function readEvent(stored: StoredEvent): ReadEvent | undefined {
  if (!isEventKind(stored.kind)) return undefined;
  return checked(stored, stored.kind);
}

/**
 * The last event of a kind, its payload checked.
 *
 * @throws {CorruptionError} when its payload does not have the kind's shape.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { EVENT, last } from "./event_catalogue.ts";
 * assert.equal(last([], EVENT.agentStopped), undefined);
 * ```
 */
export function last<K extends EventKind>(
  events: readonly StoredEvent[],
  kind: K,
): ReadEvent<K> | undefined {
  const found = events.findLast((stored) => stored.kind === kind);
  return found && checked(found, kind);
}

/**
 * The first event of a kind, its payload checked.
 *
 * @throws {CorruptionError} when its payload does not have the kind's shape.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { EVENT, first } from "./event_catalogue.ts";
 * assert.equal(first([], EVENT.workspaceStaged), undefined);
 * ```
 */
export function first<K extends EventKind>(
  events: readonly StoredEvent[],
  kind: K,
): ReadEvent<K> | undefined {
  const found = events.find((stored) => stored.kind === kind);
  return found && checked(found, kind);
}

/**
 * Every event of a kind, in order, payloads checked.
 *
 * @throws {CorruptionError} when a payload does not have the kind's shape.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { all, EVENT } from "./event_catalogue.ts";
 * assert.equal(all([], EVENT.modelRequest).length, 0);
 * ```
 */
export function all<K extends EventKind>(
  events: readonly StoredEvent[],
  kind: K,
): ReadEvent<K>[] {
  return events.filter((stored) => stored.kind === kind).map((stored) => checked(stored, kind));
}

/**
 * Whether any event is of a kind (its payload is not read).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { EVENT, has } from "./event_catalogue.ts";
 * assert(!has([], EVENT.trialResumed));
 * ```
 */
export function has(events: readonly StoredEvent[], kind: EventKind): boolean {
  return events.some((stored) => stored.kind === kind);
}

function checked<K extends EventKind>(stored: StoredEvent, kind: K): ReadEvent<K> {
  const parsed = EVENT_SCHEMAS[kind].safeParse(stored.payload);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue.path.length > 0 ? issue.path.join(".") : "payload";
    throw new CorruptionError(
      `event ${stored.seq} of session ${stored.session} (${kind}) is not in the shape this ` +
        `version reads: ${field}: ${issue.message}; it was written by another version of verdict ` +
        `or by hand`,
    );
  }
  return { ...stored, kind, payload: parsed.data } as ReadEvent<K>;
}
