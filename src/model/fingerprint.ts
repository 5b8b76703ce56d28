/**
 * A request's fingerprint: sha256 over the canonical JSON of its manifest, which names the system
 * prompt, the tool schemas and every message by their own sha256, plus the parameters. Two
 * requests with the same fingerprint are the same request. Message hashes are cached per message
 * object, so fingerprinting a long history costs one hash per new message.
 *
 * @module
 */
import { canonicalJson } from "../core/canonical_json.ts";
import { type Sha256Hex, sha256Hex } from "../core/hash.ts";
import type { Message, ModelRequest, ToolSchema } from "./model.ts";

/** A request named by the hashes of its parts. */
export interface RequestManifest {
  /** sha256 of the system prompt's canonical JSON. */
  system: Sha256Hex;
  /** sha256 of the tool schemas' canonical JSON. */
  tools: Sha256Hex;
  /** The output budget. */
  max_output_tokens: number;
  /** sha256 of each message's canonical JSON, in order. */
  messages: Sha256Hex[];
}

const messageHashes = new WeakMap<Message, Sha256Hex>();
const toolHashes = new WeakMap<readonly ToolSchema[], Sha256Hex>();

/**
 * The canonical JSON of a message and its hash (cached per message object).
 *
 * @example
 * ```ts
 * import { messageHash } from "./fingerprint.ts";
 * const message = { role: "user" as const, content: "hi" };
 * console.assert(messageHash(message) === messageHash({ content: "hi", role: "user" }));
 * ```
 */
export function messageHash(message: Message): Sha256Hex {
  let hash = messageHashes.get(message);
  if (hash === undefined) {
    hash = sha256Hex(canonicalJson(message));
    messageHashes.set(message, hash);
  }
  return hash;
}

/** The hash of a tool list (cached per array). */
export function toolsHash(tools: readonly ToolSchema[]): Sha256Hex {
  let hash = toolHashes.get(tools);
  if (hash === undefined) {
    hash = sha256Hex(canonicalJson(tools));
    toolHashes.set(tools, hash);
  }
  return hash;
}

/**
 * A request's manifest.
 *
 * @example
 * ```ts
 * import { requestManifest } from "./fingerprint.ts";
 * const manifest = requestManifest({ system: "s", messages: [], tools: [], maxOutputTokens: 10 });
 * console.assert(manifest.messages.length === 0 && manifest.max_output_tokens === 10);
 * ```
 */
export function requestManifest(request: ModelRequest): RequestManifest {
  return {
    system: sha256Hex(canonicalJson(request.system)),
    tools: toolsHash(request.tools),
    max_output_tokens: request.maxOutputTokens,
    messages: request.messages.map(messageHash),
  };
}

/**
 * The fingerprint of a request.
 *
 * @example
 * ```ts
 * import { fingerprint } from "./fingerprint.ts";
 * const request = { system: "s", messages: [{ role: "user" as const, content: "x" }], tools: [], maxOutputTokens: 5 };
 * console.assert(fingerprint(request) === fingerprint(structuredClone(request)));
 * ```
 */
export function fingerprint(request: ModelRequest): Sha256Hex {
  return sha256Hex(`verdict.request/1\n${canonicalJson(requestManifest(request))}`);
}
