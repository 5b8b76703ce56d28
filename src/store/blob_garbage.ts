/**
 * Blobs no event refers to any more (after runs were deleted), found by walking every event that
 * is left: the blob fields of its payload, and what `references` says its payload stands for (a
 * sealed snapshot's files, a model request's parts), as `verify` and `merge` see them.
 *
 * @module
 */
import type { EventRow } from "./event_log.ts";
import type { Store } from "./store.ts";
import type { BlobReferences } from "./verify.ts";

/** What a collection removed. */
export interface CollectedBlobs {
  /** Blobs deleted. */
  blobs: number;
  /** Their bytes. */
  bytes: number;
}

/**
 * Deletes every blob no event of `store` refers to. Another process must not be recording into
 * the store meanwhile (a blob it just stored may not be referred to yet): the caller holds every
 * run's lock. Call it inside a transaction.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openStore } from "./store.ts";
 * import { collectBlobs } from "./blob_garbage.ts";
 * const store = openStore(":memory:");
 * store.runs.create({ id: "r", config: {}, createdAt: 0 });
 * store.runs.createSession({ id: "s", run: "r", task: "t", repeat: 0 });
 * store.events.append("s", [{ kind: "note", payload: { text: "x".repeat(5000) } }]);
 * store.blobs.putText("nobody refers to this");
 * assert.deepEqual(collectBlobs(store, () => []), { blobs: 1, bytes: 21 });
 * assert.deepEqual(collectBlobs(store, () => []), { blobs: 0, bytes: 0 });
 * ```
 */
export function collectBlobs(store: Store, references: BlobReferences): CollectedBlobs {
  const keep = referencedBlobs(store, references);
  const doomed: { hash: string; size: number }[] = [];
  for (const row of store.db.prepare("SELECT hash, size FROM blobs").iterate()) {
    const { hash, size } = row as { hash: string; size: number };
    if (!keep.has(hash)) doomed.push({ hash, size });
  }
  const remove = store.db.prepare("DELETE FROM blobs WHERE hash = ?");
  for (const { hash } of doomed) remove.run(hash);
  return { blobs: doomed.length, bytes: doomed.reduce((sum, blob) => sum + blob.size, 0) };
}

function referencedBlobs(store: Store, references: BlobReferences): Set<string> {
  const keep = new Set<string>();
  const rows = store.db.prepare(
    "SELECT session_id AS session, seq, kind, payload, refs, prev_hash AS prevHash, hash " +
      "FROM events",
  ).iterate() as IterableIterator<unknown> as IterableIterator<EventRow>;
  for (const row of rows) {
    for (const hash of Object.values(JSON.parse(row.refs) as Record<string, string>)) {
      keep.add(hash);
    }
    for (const hash of references(row.kind, store.events.materialize(row).payload)) keep.add(hash);
  }
  return keep;
}
