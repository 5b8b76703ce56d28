/**
 * Every kind of event a session's log holds, each defined once: in its family's file under
 * `events/` (trial, agent, model, tool, workspace, gateway), as the zod schema of its payload
 * described with what the event means. Everything else is derived from those definitions: the
 * kinds ({@linkcode EventKind}), their payload types ({@linkcode EventPayload}), the constants
 * that name them ({@linkcode EVENT}) and the kinds whose `root` is a snapshot
 * ({@linkcode SNAPSHOT_KINDS}). Adding a kind is adding one entry to its family's file.
 *
 * Writers build events with {@linkcode event} (the payload is checked against its kind at compile
 * time); readers get payloads back through {@linkcode last}, {@linkcode first} and
 * {@linkcode readEvent}, which check them at run time, so a record in a shape this version does not
 * know is refused with its place named instead of misread.
 *
 * The payloads are the JSON a log stores, so their field names are the stored ones. Fields that
 * older records lack are optional. Changing a schema changes what old records must look like:
 * widen it (optional fields, unions), never narrow it.
 *
 * @module
 */
import { z } from "zod";
import { CorruptionError } from "../core/errors.ts";
import type { StoredEvent } from "./event_log.ts";
import { SNAPSHOT_ROOT } from "./events/_fields.ts";
import { AGENT_EVENTS } from "./events/agent_events.ts";
import { GATEWAY_EVENTS } from "./events/gateway_events.ts";
import { MODEL_EVENTS } from "./events/model_events.ts";
import { TOOL_EVENTS } from "./events/tool_events.ts";
import { TRIAL_EVENTS } from "./events/trial_events.ts";
import { WORKSPACE_EVENTS } from "./events/workspace_events.ts";

/**
 * Every event kind, by family (one file each under `src/store/events/`): kind → the zod schema
 * of its payload, described with what the event means.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { EVENT_FAMILIES } from "./event_catalogue.ts";
 * assert.equal(EVENT_FAMILIES.agent["agent.nop"].description, "The nop agent did nothing.");
 * ```
 */
export const EVENT_FAMILIES = {
  trial: TRIAL_EVENTS,
  agent: AGENT_EVENTS,
  model: MODEL_EVENTS,
  tool: TOOL_EVENTS,
  workspace: WORKSPACE_EVENTS,
  gateway: GATEWAY_EVENTS,
};

/** An event kind, such as `model.request`: one defined in {@linkcode EVENT_FAMILIES}. */
export type EventKind = {
  [F in keyof typeof EVENT_FAMILIES]: keyof (typeof EVENT_FAMILIES)[F];
}[keyof typeof EVENT_FAMILIES];

/** The zod schema of a kind's payload. */
export type EventSchema<K extends EventKind> = {
  [F in keyof typeof EVENT_FAMILIES]: K extends keyof (typeof EVENT_FAMILIES)[F]
    ? (typeof EVENT_FAMILIES)[F][K]
    : never;
}[keyof typeof EVENT_FAMILIES];

/** The payload of a kind: what its schema reads (its Standard Schema output). */
export type EventPayload<K extends EventKind> = EventSchema<K> extends
  { "~standard": { types?: { output: infer Payload } } } ? Payload : never;

/**
 * The name of a kind's constant in {@linkcode EVENT}: the kind in camel case, so
 * `end_state.sealed` is `EVENT.endStateSealed`.
 */
export type EventConstant<K extends string> = K extends `${infer Head}.${infer Tail}`
  ? `${EventConstant<Head>}${Capitalize<EventConstant<Tail>>}`
  : K extends `${infer Head}_${infer Tail}` ? `${Head}${Capitalize<EventConstant<Tail>>}`
  : K;

/** An event of the catalogue: a union discriminated on `kind`. */
export type CatalogueEvent = { [K in EventKind]: { kind: K; payload: EventPayload<K> } }[EventKind];

/**
 * Every kind and the schema of its payload, the families flattened.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { EVENT_SCHEMAS } from "./event_catalogue.ts";
 * assert(EVENT_SCHEMAS["workspace.staged"].safeParse({ root: "r", entries: 1 }).success);
 * ```
 */
export const EVENT_SCHEMAS: { readonly [K in EventKind]: EventSchema<K> } = flattened(
  EVENT_FAMILIES,
);

/**
 * The kinds by name, so code names a kind through the catalogue rather than a string of its own:
 * each kind's constant is the kind in camel case ({@linkcode EventConstant}).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { EVENT } from "./event_catalogue.ts";
 * assert.equal(EVENT.modelRequest, "model.request");
 * assert.equal(EVENT.endStateSealed, "end_state.sealed");
 * ```
 */
export const EVENT: { readonly [K in EventKind as EventConstant<K>]: K } = constants(
  Object.keys(EVENT_SCHEMAS) as EventKind[],
);

/**
 * The kinds whose payload `root` names a workspace snapshot (its manifest and files are blobs
 * that `verify` checks): those whose schema's `root` field is the snapshot root's.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { EVENT, SNAPSHOT_KINDS } from "./event_catalogue.ts";
 * assert(SNAPSHOT_KINDS.has(EVENT.endStateSealed) && !SNAPSHOT_KINDS.has(EVENT.modelRequest));
 * ```
 */
export const SNAPSHOT_KINDS: ReadonlySet<EventKind> = new Set(
  (Object.keys(EVENT_SCHEMAS) as EventKind[]).filter((kind) => rootIsSnapshot(EVENT_SCHEMAS[kind])),
);

/** A stored event of a known kind, its payload checked. */
export type ReadEvent<K extends EventKind = EventKind> =
  & Omit<StoredEvent, "kind" | "payload">
  & {
    [J in K]: { kind: J; payload: EventPayload<J> };
  }[K];

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

function flattened(
  families: typeof EVENT_FAMILIES,
): { readonly [K in EventKind]: EventSchema<K> } {
  const schemas: Record<string, z.ZodType> = {};
  for (const family of Object.values(families)) {
    for (const [kind, schema] of Object.entries(family)) {
      if (Object.hasOwn(schemas, kind)) throw new Error(`event kind ${kind} is defined twice`);
      schemas[kind] = schema;
    }
  }
  return schemas as unknown as { readonly [K in EventKind]: EventSchema<K> };
}

function constants(kinds: EventKind[]): { readonly [K in EventKind as EventConstant<K>]: K } {
  const constants: Record<string, EventKind> = {};
  for (const kind of kinds) {
    const name = kind.replace(/[._](.)/g, (_, letter: string) => letter.toUpperCase());
    if (Object.hasOwn(constants, name)) throw new Error(`event kinds share the constant ${name}`);
    constants[name] = kind;
  }
  return constants as { readonly [K in EventKind as EventConstant<K>]: K };
}

function rootIsSnapshot(schema: unknown): boolean {
  if (schema instanceof z.ZodUnion) return schema.options.every(rootIsSnapshot);
  return schema instanceof z.ZodObject && schema.shape.root === SNAPSHOT_ROOT;
}
