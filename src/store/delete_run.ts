/**
 * Deleting a run's rows: its sessions' events, its sessions, its signature and its shards'
 * signatures, and the run. Blobs are shared between runs (content-addressed) and stay; see
 * `blob_garbage.ts` for the ones no run refers to any more.
 *
 * @module
 */
import type { Store } from "./store.ts";

/**
 * Deletes run `id` and everything recorded under it; returns how many sessions and events went.
 * Call it inside a transaction when several runs go together.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openStore } from "./store.ts";
 * import { deleteRun } from "./delete_run.ts";
 * const store = openStore(":memory:");
 * store.runs.create({ id: "r1", config: {}, createdAt: 0 });
 * store.runs.createSession({ id: "s1", run: "r1", task: "t", repeat: 0 });
 * store.events.append("s1", [{ kind: "note", payload: {} }]);
 * assert.deepEqual(deleteRun(store, "r1"), { sessions: 1, events: 1 });
 * assert.equal(store.runs.get("r1"), undefined);
 * ```
 */
export function deleteRun(store: Store, id: string): { sessions: number; events: number } {
  const { db } = store;
  const events = db.prepare(
    "DELETE FROM events WHERE session_id IN (SELECT id FROM sessions WHERE run_id = ?)",
  ).run(id).changes;
  const sessions = db.prepare("DELETE FROM sessions WHERE run_id = ?").run(id).changes;
  db.prepare("DELETE FROM run_signatures WHERE run_id = ?").run(id);
  db.prepare("DELETE FROM shard_signatures WHERE run_id = ?").run(id);
  db.prepare("DELETE FROM runs WHERE id = ?").run(id);
  return { sessions: Number(sessions), events: Number(events) };
}
