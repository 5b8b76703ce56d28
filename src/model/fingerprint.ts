/**
 * A request's fingerprint: a hash over its system prompt, tool schemas, parameters and messages,
 * each part named by the sha256 of its canonical JSON and the messages chained in order
 * (`link_i = sha256(link_{i-1} + message_i)`). The parameters are the output budget and, when the
 * user chose any, the request's `parameters` (temperature, reasoning effort, headers with secret
 * values redacted), hashed as canonical JSON on a line of their own; a request without them keeps
 * the fingerprint it had before they existed. Two requests with the same fingerprint are the
 * same request. A {@linkcode RequestFingerprinter} keeps the chain of the previous request, so a
 * request that extends it costs one hash per new message, however long the history.
 *
 * @module
 */
import { canonicalJson } from "../core/canonical_json.ts";
import { type Sha256Hex, sha256Hex } from "../core/hash.ts";
import type { Message, ModelRequest, RequestParameters, ToolSchema } from "./model.ts";

const canonicalMessages = new WeakMap<Message, CanonicalMessage>();
const toolHashes = new WeakMap<readonly ToolSchema[], Sha256Hex>();

/** A message's canonical JSON and its sha256. */
export interface CanonicalMessage {
  /** The canonical JSON: what the blob store keeps. */
  json: string;
  /** Its sha256: what requests name the message by. */
  hash: Sha256Hex;
}

/**
 * A message's canonical JSON and its hash, computed once per message object (the fingerprint and
 * the request's record both need them).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { canonicalMessage } from "./fingerprint.ts";
 * const message = { role: "user" as const, content: "hi" };
 * assert(canonicalMessage(message).hash === canonicalMessage({ content: "hi", role: "user" }).hash);
 * ```
 */
export function canonicalMessage(message: Message): CanonicalMessage {
  let canonical = canonicalMessages.get(message);
  if (canonical === undefined) {
    const json = canonicalJson(message);
    canonical = { json, hash: sha256Hex(json) };
    canonicalMessages.set(message, canonical);
  }
  return canonical;
}

/** The sha256 of a tool list's canonical JSON (cached per array). */
export function toolsHash(tools: readonly ToolSchema[]): Sha256Hex {
  let hash = toolHashes.get(tools);
  if (hash === undefined) {
    hash = sha256Hex(canonicalJson(tools));
    toolHashes.set(tools, hash);
  }
  return hash;
}

/** A request named by the hashes of its parts. */
export interface RequestManifest {
  /** sha256 of the system prompt's canonical JSON. */
  system: Sha256Hex;
  /** sha256 of the tool schemas' canonical JSON. */
  tools: Sha256Hex;
  /** The output budget. */
  max_output_tokens: number;
  /** The user's sampling and transport settings; absent when none were chosen. */
  parameters?: RequestParameters;
  /** sha256 of each message's canonical JSON, in order. */
  messages: Sha256Hex[];
}

/** A request fingerprinted. */
export interface Fingerprinted {
  /** The fingerprint. */
  fingerprint: Sha256Hex;
  /** The parts' hashes. */
  manifest: RequestManifest;
  /** How many leading messages it shares with the previous request. */
  prefix: number;
}

/**
 * Fingerprints a sequence of requests, reusing what each shares with the one before.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { RequestFingerprinter } from "./fingerprint.ts";
 * const fingerprinter = new RequestFingerprinter();
 * const first = { system: "s", messages: [{ role: "user" as const, content: "x" }], tools: [], maxOutputTokens: 5 };
 * const a = fingerprinter.fingerprint(first);
 * const b = fingerprinter.fingerprint({ ...first, messages: [...first.messages, { role: "user" as const, content: "y" }] });
 * assert(b.prefix === 1 && a.fingerprint !== b.fingerprint);
 * ```
 */
export class RequestFingerprinter {
  #messages: Message[] = [];
  #hashes: Sha256Hex[] = [];
  #chain: Sha256Hex[] = [];
  #system = "";
  #systemHash = "";

  /** Fingerprints the next request. */
  fingerprint(request: ModelRequest): Fingerprinted {
    const messages = request.messages;
    let prefix = 0;
    while (
      prefix < this.#messages.length && prefix < messages.length &&
      (this.#messages[prefix] === messages[prefix] ||
        this.#hashes[prefix] === canonicalMessage(messages[prefix]).hash)
    ) prefix++;
    this.#messages.length = this.#hashes.length = this.#chain.length = prefix;
    for (let index = prefix; index < messages.length; index++) {
      const hash = canonicalMessage(messages[index]).hash;
      this.#messages.push(messages[index]);
      this.#hashes.push(hash);
      this.#chain.push(sha256Hex(`${this.#chain[index - 1] ?? ""}${hash}`));
    }
    if (request.system !== this.#system || this.#systemHash === "") {
      this.#system = request.system;
      this.#systemHash = sha256Hex(canonicalJson(request.system));
    }
    const parameters = request.parameters;
    const manifest: RequestManifest = {
      system: this.#systemHash,
      tools: toolsHash(request.tools),
      max_output_tokens: request.maxOutputTokens,
      ...(parameters ? { parameters } : {}),
      messages: [...this.#hashes],
    };
    const parametersLine = parameters ? `${sha256Hex(canonicalJson(parameters))}\n` : "";
    const fingerprint = sha256Hex(
      `verdict.request/1\n${manifest.system}\n${manifest.tools}\n${manifest.max_output_tokens}\n${parametersLine}${
        this.#chain.at(-1) ?? ""
      }`,
    );
    return { fingerprint, manifest, prefix };
  }
}

/**
 * The fingerprint of one request on its own.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { fingerprint } from "./fingerprint.ts";
 * const request = { system: "s", messages: [{ role: "user" as const, content: "x" }], tools: [], maxOutputTokens: 5 };
 * assert(fingerprint(request) === fingerprint(structuredClone(request)));
 * ```
 */
export function fingerprint(request: ModelRequest): Sha256Hex {
  return new RequestFingerprinter().fingerprint(request).fingerprint;
}
