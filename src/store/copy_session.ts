/**
 * Copying a finished session from one state database into another exactly as it is: the same id,
 * the same event rows (so the hash chain, which starts from the session id, stays intact), every
 * blob its events refer to (content-addressed, so a blob both stores hold is not copied twice), and
 * its result and summary columns. `verdict merge` builds a run from its shards with it.
 *
 * @module
 */
import { damagedRecord } from "./_damaged_record.ts";
import { eventHash, type EventRow, genesisHash } from "./event_log.ts";
import type { SessionRecord } from "./run_table.ts";
import type { Store } from "./store.ts";
import type { BlobReferences } from "./verify.ts";

/** What one copy moved. */
export interface CopiedSession {
  /** Events copied. */
  events: number;
  /** Blobs the target did not hold yet, copied. */
  blobs: number;
}

/**
 * Copies a finished session of `from` into the run of the same id in `to` (which must already hold
 * that run and no session of this id). The source is checked as it is read: every event must chain
 * from the one before and hash to its stored hash, the log must end at the session's pinned head,
 * and every blob must re-hash to its key; a copy never carries damage over. `references` names the
 * blobs an event stands for beyond its own blob fields (a snapshot's files), read from `from`.
 * Call it inside a transaction of `to` so a failed copy leaves nothing behind.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openStore } from "./store.ts";
 * import { copySession } from "./copy_session.ts";
 * import type { TrialRecord } from "./trial_record.ts";
 * const from = openStore(":memory:");
 * from.runs.create({ id: "r", config: {}, createdAt: 0 });
 * from.runs.createSession({ id: "s", run: "r", task: "t", repeat: 0 });
 * from.events.append("s", [{ kind: "note", payload: { text: "x".repeat(5000) } }]);
 * const result: TrialRecord = {
 *   task: "t", repeat: 0, session: "s", verdict: "pass", bucket: "pass", reason: "ok",
 *   stop_reason: "completed", steps: 0, tool_calls: 0, denied_calls: 0, compactions: 0,
 *   tokens: { input: 0, output: 0 }, cost_usd: null, end_state_root: null, initial_root: null,
 *   changed_paths: 0, duration_ms: 1, checks: [], requirements: [], success: null, canary: null,
 * };
 * from.runs.finishSession("s", result);
 * const to = openStore(":memory:");
 * to.runs.create({ id: "r", config: {}, createdAt: 0 });
 * const copied = to.transaction(() => copySession(from, to, from.runs.session("s")!, () => []));
 * assert.deepEqual(copied, { events: 1, blobs: 1 });
 * assert.equal(to.runs.session("s")!.headHash, from.runs.session("s")!.headHash);
 * ```
 * @throws {CorruptionError} when the session is not finished with a result, or its log or a blob
 * in `from` is damaged (exit 1), naming the session and the event.
 */
export function copySession(
  from: Store,
  to: Store,
  session: SessionRecord,
  references: BlobReferences,
): CopiedSession {
  const where = `session ${session.id}`;
  if (session.status !== "finished" || session.result === null) {
    throw damagedRecord(where, "it is not a finished session with a result", session.run);
  }
  const rows = checkedRows(from, session);
  const blobs = new Set<string>();
  for (const row of rows) {
    // Materializing re-hashes the event's own blob fields; the references follow its payload.
    const event = from.events.materialize(row);
    for (const hash of Object.values(JSON.parse(row.refs) as Record<string, string>)) {
      blobs.add(hash);
    }
    for (const hash of references(row.kind, event.payload)) blobs.add(hash);
  }
  let copiedBlobs = 0;
  for (const hash of blobs) {
    if (to.blobs.has(hash)) continue;
    to.blobs.put(from.blobs.get(hash));
    copiedBlobs++;
  }
  to.runs.createSession({
    id: session.id,
    run: session.run,
    task: session.task,
    repeat: session.repeat,
    retry: session.retry,
  });
  const insert = to.db.prepare(
    "INSERT INTO events (session_id, seq, kind, payload, refs, prev_hash, hash, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
  );
  for (const row of rows) {
    insert.run(
      row.session,
      row.seq,
      row.kind,
      row.payload,
      row.refs,
      row.prevHash,
      row.hash,
      row.at ?? null,
    );
  }
  to.runs.finishSession(session.id, session.result);
  return { events: rows.length, blobs: copiedBlobs };
}

/** The session's rows, each checked against the chain and the pinned head. */
function checkedRows(from: Store, session: SessionRecord): EventRow[] {
  const rows = from.events.rows(session.id);
  let prevHash = genesisHash(session.id);
  rows.forEach((row, position) => {
    if (row.seq !== position || row.prevHash !== prevHash || eventHash(row) !== row.hash) {
      throw damagedRecord(
        `session ${session.id}, event ${row.seq}`,
        "its content no longer matches its hash chain",
        session.run,
      );
    }
    prevHash = row.hash;
  });
  if (session.headSeq !== rows.length - 1 || session.headHash !== prevHash) {
    throw damagedRecord(
      `session ${session.id}`,
      `its pinned head (event ${session.headSeq}) is not the end of its log (event ${
        rows.length - 1
      })`,
      session.run,
    );
  }
  return rows;
}
