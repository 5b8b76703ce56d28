/**
 * The blobs an event stands for beyond its own payload fields: the files of a sealed snapshot,
 * and the parts of a model request. `verify` re-hashes all of them.
 *
 * @module
 */
import { snapshotReferences } from "../sandbox/snapshot.ts";
import type { BlobStore } from "../store/blob_store.ts";
import type { BlobReferences } from "../store/verify.ts";

/**
 * References for `verifyRun`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openStore } from "../store/store.ts";
 * import { eventBlobReferences } from "./event_references.ts";
 * const store = openStore(":memory:");
 * const references = eventBlobReferences(store.blobs);
 * assert(references("model.request", { request: { system: "a", tools: "b", messages: ["c"] } }).length === 3);
 * ```
 */
export function eventBlobReferences(blobs: BlobStore): BlobReferences {
  const snapshots = snapshotReferences(blobs);
  return (kind, payload) => {
    if (kind === "model.request") {
      const request = payload.request as
        | { system?: string; tools?: string; messages?: string[] }
        | undefined;
      return [request?.system, request?.tools, ...(request?.messages ?? [])].filter((
        hash,
      ): hash is string => typeof hash === "string");
    }
    return snapshots(kind, payload);
  };
}
