/**
 * The blobs an event stands for beyond its own payload fields: the files of a sealed snapshot,
 * and the parts of a model request. `verify` re-hashes all of them.
 *
 * @module
 */
import { snapshotReferences } from "../../workspace/snapshot.ts";
import type { BlobStore } from "../../store/blob_store.ts";
import { EVENT, EVENT_SCHEMAS, isEventKind, SNAPSHOT_KINDS } from "../../store/event_catalogue.ts";
import type { BlobReferences } from "../../store/verify.ts";

/**
 * References for `verifyRun`. A payload not in its kind's shape names nothing more: the chain
 * check reports the event itself.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openStore } from "../../store/store.ts";
 * import { EVENT } from "../../store/event_catalogue.ts";
 * import { eventBlobReferences } from "./event_references.ts";
 * const store = openStore(":memory:");
 * const references = eventBlobReferences(store.blobs);
 * const request = { system: "a", tools: "b", max_output_tokens: 9, messages: ["c"], prefix: 0 };
 * assert.equal(references(EVENT.modelRequest, { step: 1, fingerprint: "f", request }).length, 3);
 * assert.equal(references("note", { root: "r" }).length, 0); // a field named root is not a snapshot
 * store.close();
 * ```
 */
export function eventBlobReferences(blobs: BlobStore): BlobReferences {
  return (kind, payload) => {
    if (kind === EVENT.modelRequest) {
      const parsed = EVENT_SCHEMAS[EVENT.modelRequest].safeParse(payload);
      if (!parsed.success) return [];
      const { system, tools, messages } = parsed.data.request;
      return [system, tools, ...messages];
    }
    if (!isEventKind(kind) || !SNAPSHOT_KINDS.has(kind)) return [];
    const root = EVENT_SCHEMAS[kind].safeParse(payload);
    if (!root.success || !("root" in root.data)) return [];
    return snapshotReferences(blobs, root.data.root);
  };
}
