/**
 * Recording the loop's model requests part by part: the system prompt, the tool schemas and each
 * message go to the blob store once, and each request event names only the message hashes that
 * are new since the previous request (`prefix` says how many it shares).
 *
 * @module
 */
import { canonicalJson } from "../core/canonical_json.ts";
import { canonicalMessage, RequestFingerprinter } from "../model/fingerprint.ts";
import type { ModelRequest } from "../model/model.ts";
import type { EVENT, EventPayload } from "../store/event_catalogue.ts";
import type { AgentContext } from "./agent.ts";

/** What a `model.request` event holds, less its step. */
export type RequestRecord = Omit<EventPayload<typeof EVENT.modelRequest>, "step">;

/** Records a session's requests, each against the one before. */
export interface RequestRecorder {
  /** Stores the request's new parts and returns what its event records. */
  record(request: ModelRequest): RequestRecord;
}

/**
 * A request recorder for one run of the loop, storing into the session's blob store.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { requestRecorder } from "./_request_recorder.ts";
 * import { sha256Hex } from "../core/hash.ts";
 * import type { AgentContext } from "./agent.ts";
 * const blobs: string[] = [];
 * const context = {
 *   storeBlob: (text: string) => (blobs.push(text), sha256Hex(text)),
 * } as unknown as AgentContext;
 * const recorder = requestRecorder(context);
 * const request = {
 *   system: "s",
 *   messages: [{ role: "user" as const, content: "task" }],
 *   tools: [],
 *   maxOutputTokens: 10,
 * };
 * assert(recorder.record(request).request.prefix === 0);
 * assert(recorder.record(request).request.prefix === 1);
 * assert(blobs.length === 3);
 * ```
 */
export function requestRecorder(context: AgentContext): RequestRecorder {
  const stored = new Set<string>();
  const fingerprinter = new RequestFingerprinter();
  const store = (hash: string, text: () => string) => {
    if (stored.has(hash)) return;
    if (context.storeBlob(text()) !== hash) throw new Error("a request part changed while stored");
    stored.add(hash);
  };
  return {
    record(request: ModelRequest): RequestRecord {
      const { fingerprint, manifest, prefix } = fingerprinter.fingerprint(request);
      store(manifest.system, () => canonicalJson(request.system));
      store(manifest.tools, () => canonicalJson(request.tools));
      for (let index = prefix; index < request.messages.length; index++) {
        store(manifest.messages[index], () => canonicalMessage(request.messages[index]).json);
      }
      return {
        fingerprint,
        request: { ...manifest, prefix, messages: manifest.messages.slice(prefix) },
      };
    },
  };
}
