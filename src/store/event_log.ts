/**
 * Append-only, hash-chained event logs, one per session. Each event's hash is sha256 over the
 * previous event's hash and the event's canonical form, so changing, removing or reordering any
 * event breaks the chain from that point on. A payload field whose canonical JSON is larger than
 * {@linkcode BLOB_THRESHOLD_BYTES} is stored once in the blob table and referenced by its hash.
 *
 * @module
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";
import { canonicalJson } from "../core/canonical_json.ts";
import { CorruptionError } from "../core/errors.ts";
import { type Sha256Hex, sha256Hex } from "../core/hash.ts";
import { damagedRecord, parseStoredJson } from "./_damaged_record.ts";
import type { BlobStore } from "./blob_store.ts";
import { transaction } from "./transaction.ts";

/** Payload fields larger than this (canonical JSON, in UTF-8 bytes) go to the blob table. */
export const BLOB_THRESHOLD_BYTES = 4096;

/** An event's payload: a JSON object. */
export type Payload = Record<string, unknown>;

/** An event to append. */
export interface NewEvent {
  /** What happened, such as `model.request` or `tool.result`. */
  kind: string;
  /** Its data. */
  payload: Payload;
}

/** An event as stored, with its place in the chain. */
export interface StoredEvent extends NewEvent {
  /** The session whose log holds it. */
  session: string;
  /** Its position in the log, from 0. */
  seq: number;
  /** The hash of the event before it (or of the session's genesis). */
  prevHash: Sha256Hex;
  /** sha256 over `prevHash` and this event's canonical form. */
  hash: Sha256Hex;
  /**
   * When it was appended (ms since the epoch, from the injected clock), or null. Metadata: not
   * covered by the hash, so the same trajectory hashes the same whenever it ran.
   */
  at: number | null;
}

/** The raw columns of an event row: what the hash is computed over. */
export interface EventRow {
  /** The session id. */
  session: string;
  /** The sequence number. */
  seq: number;
  /** The kind. */
  kind: string;
  /** Canonical JSON of the payload's inline fields. */
  payload: string;
  /** Canonical JSON of `{field: blob hash}` for the fields stored as blobs. */
  refs: string;
  /** The previous hash. */
  prevHash: Sha256Hex;
  /** The stored hash. */
  hash: Sha256Hex;
  /** When it was appended; not hashed. */
  at?: number | null;
}

/**
 * The hash a session's first event chains from.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { genesisHash } from "./event_log.ts";
 * assert(genesisHash("s1") !== genesisHash("s2"));
 * ```
 */
export function genesisHash(session: string): Sha256Hex {
  return sha256Hex(`verdict.session/1\n${session}`);
}

/**
 * The hash of an event row: sha256 over the previous hash, a newline, and the canonical JSON of
 * `{kind, payload, refs, seq, session}` built from the stored strings.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { eventHash, genesisHash } from "./event_log.ts";
 * const prevHash = genesisHash("s");
 * const hash = eventHash({ session: "s", seq: 0, kind: "k", payload: "{}", refs: "{}", prevHash });
 * assert(hash.length === 64);
 * ```
 */
export function eventHash(row: Omit<EventRow, "hash" | "at">): Sha256Hex {
  const body = `{"kind":${JSON.stringify(row.kind)},"payload":${row.payload},"refs":${row.refs},` +
    `"seq":${row.seq},"session":${JSON.stringify(row.session)}}`;
  return sha256Hex(`${row.prevHash}\n${body}`);
}

/**
 * Reads and appends session event logs in one database.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openStore } from "./store.ts";
 * const store = openStore(":memory:");
 * store.runs.create({ id: "r1", config: {}, createdAt: 0 });
 * store.runs.createSession({ id: "s1", run: "r1", task: "t", repeat: 0 });
 * store.events.append("s1", [{ kind: "start", payload: {} }, { kind: "stop", payload: {} }]);
 * assert(store.events.read("s1").length === 2);
 * store.close();
 * ```
 */
export class EventLog {
  readonly #db: DatabaseSync;
  readonly #blobs: BlobStore;
  readonly #last: StatementSync;
  readonly #insert: StatementSync;
  readonly #select: StatementSync;
  readonly #runOf: StatementSync;

  /** Wraps a migrated database and its blob store. */
  constructor(db: DatabaseSync, blobs: BlobStore) {
    this.#db = db;
    this.#blobs = blobs;
    this.#last = db.prepare(
      "SELECT seq, hash FROM events WHERE session_id = ? ORDER BY seq DESC LIMIT 1",
    );
    this.#insert = db.prepare(
      "INSERT INTO events (session_id, seq, kind, payload, refs, prev_hash, hash, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
    );
    this.#select = db.prepare(
      "SELECT session_id, seq, kind, payload, refs, prev_hash, hash, at FROM events WHERE session_id = ? AND seq >= ? ORDER BY seq",
    );
    this.#runOf = db.prepare("SELECT run_id FROM sessions WHERE id = ?");
  }

  /**
   * Appends events to a session's log in one transaction: all of them are committed, or none.
   * `at` stamps them with the time (metadata, outside the hash). Returns them as stored.
   */
  append(
    session: string,
    events: readonly NewEvent[],
    at: number | null = null,
  ): StoredEvent[] {
    return transaction(this.#db, () => {
      let { seq, hash: prevHash } = this.head(session);
      const stored: StoredEvent[] = [];
      for (const event of events) {
        seq++;
        const fields = payloadFields(event.payload);
        const { payload, refs } = this.#externalize(fields);
        const hash = eventHash({ session, seq, kind: event.kind, payload, refs, prevHash });
        this.#insert.run(session, seq, event.kind, payload, refs, prevHash, hash, at);
        stored.push({ session, seq, kind: event.kind, payload: fields, prevHash, hash, at });
        prevHash = hash;
      }
      return stored;
    });
  }

  /**
   * The events of a session from `fromSeq` on, with blob fields loaded and checked. Each event must
   * hash to its stored hash and chain from the one before (from the genesis hash when read from
   * the start), so an edited record is refused rather than read.
   *
   * @throws {CorruptionError} "the record is damaged", naming the event and the run to verify.
   */
  read(session: string, fromSeq = 0): StoredEvent[] {
    const rows = this.rows(session, fromSeq);
    let prevHash = fromSeq === 0 ? genesisHash(session) : rows[0]?.prevHash;
    return rows.map((row) => {
      if (row.prevHash !== prevHash || eventHash(row) !== row.hash) {
        throw this.#damaged(row, "its content no longer matches its hash chain");
      }
      prevHash = row.hash;
      return this.materialize(row);
    });
  }

  /** The raw rows of a session, as stored (for verification). */
  rows(session: string, fromSeq = 0): EventRow[] {
    return (this.#select.all(session, fromSeq) as Record<string, string & number>[]).map((row) => ({
      session: row.session_id,
      seq: row.seq,
      kind: row.kind,
      payload: row.payload,
      refs: row.refs,
      prevHash: row.prev_hash,
      hash: row.hash,
      at: row.at,
    }));
  }

  /**
   * Turns a raw row into an event, loading each referenced blob (checked against its hash).
   *
   * @throws {CorruptionError} when the payload, its references or a blob is not the JSON stored.
   */
  materialize(row: EventRow): StoredEvent {
    const where = `session ${row.session}, event ${row.seq}`;
    const run = () => this.#runOf.get(row.session)?.run_id as string | undefined;
    const payload = parseStoredJson(row.payload, `${where} (payload)`, run, "object") as Payload;
    const refs = parseStoredJson(row.refs, `${where} (blob references)`, run, "object") as Record<
      string,
      Sha256Hex
    >;
    for (const [field, hash] of Object.entries(refs)) {
      let text: string;
      try {
        text = this.#blobs.getText(hash);
      } catch (error) {
        if (error instanceof CorruptionError) {
          throw damagedRecord(`${where} (${field})`, error.message, run);
        }
        throw error;
      }
      payload[field] = parseStoredJson(text, `${where} (${field})`, run);
    }
    return {
      session: row.session,
      seq: row.seq,
      kind: row.kind,
      payload,
      prevHash: row.prevHash,
      hash: row.hash,
      at: row.at ?? null,
    };
  }

  /** The last sequence number and hash of a session's log (-1 and the genesis hash when empty). */
  head(session: string): { seq: number; hash: Sha256Hex } {
    const last = this.#last.get(session) as { seq: number; hash: string } | undefined;
    return last ? { seq: last.seq, hash: last.hash } : { seq: -1, hash: genesisHash(session) };
  }

  #damaged(row: EventRow, what: string): CorruptionError {
    const run = () => this.#runOf.get(row.session)?.run_id as string | undefined;
    return damagedRecord(`session ${row.session}, event ${row.seq}`, what, run);
  }

  /** Splits a payload into its inline canonical JSON and the `{field: hash}` of its blob fields. */
  #externalize(payload: Payload): { payload: string; refs: string } {
    // Each field is serialized once; the objects are assembled from the pieces in key order,
    // which is exactly their canonical JSON.
    const inline: string[] = [];
    const refs: string[] = [];
    for (const field of Object.keys(payload).sort()) {
      const value = payload[field];
      if (value === undefined) continue;
      const json = canonicalJson(value);
      const key = JSON.stringify(field);
      if (utf8Length(json) > BLOB_THRESHOLD_BYTES) {
        refs.push(`${key}:"${this.#blobs.putText(json)}"`);
      } else inline.push(`${key}:${json}`);
    }
    return { payload: `{${inline.join(",")}}`, refs: `{${refs.join(",")}}` };
  }
}

function payloadFields(payload: object): Payload {
  if (payload === null || typeof payload !== "object" || Array.isArray(payload)) {
    throw new TypeError("an event payload must be a JSON object");
  }
  return { ...payload };
}

function utf8Length(text: string): number {
  // A UTF-16 code unit is at most 3 UTF-8 bytes, so short strings need no encoding to decide.
  if (text.length * 3 <= BLOB_THRESHOLD_BYTES) return text.length;
  return new TextEncoder().encode(text).length;
}
