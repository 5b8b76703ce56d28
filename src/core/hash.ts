/**
 * SHA-256 helpers. Hashing is synchronous (through `node:crypto`) because it sits on the hot path
 * of every event append and every sealed file.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { canonicalJson } from "./canonical_json.ts";

/** A lowercase hex SHA-256 digest: 64 characters. */
export type Sha256Hex = string;

/**
 * SHA-256 of a string (as UTF-8) or bytes, as lowercase hex.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { sha256Hex } from "./hash.ts";
 * assert(sha256Hex("").startsWith("e3b0c442"));
 * ```
 */
export function sha256Hex(data: string | Uint8Array): Sha256Hex {
  return createHash("sha256").update(data).digest("hex");
}

/**
 * SHA-256 of a string (as UTF-8) or bytes, as 32 raw bytes.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { sha256Bytes } from "./hash.ts";
 * assert(sha256Bytes("abc").length === 32);
 * ```
 */
export function sha256Bytes(data: string | Uint8Array): Uint8Array {
  return new Uint8Array(createHash("sha256").update(data).digest());
}

/**
 * SHA-256 over the canonical JSON of a value.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { hashCanonical } from "./hash.ts";
 * assert(hashCanonical({ a: 1, b: 2 }) === hashCanonical({ b: 2, a: 1 }));
 * ```
 */
export function hashCanonical(value: unknown): Sha256Hex {
  return sha256Hex(canonicalJson(value));
}

/**
 * An incremental SHA-256 for data that arrives in pieces.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Sha256, sha256Hex } from "./hash.ts";
 * const hash = new Sha256().update("ab").update("c").hex();
 * assert(hash === sha256Hex("abc"));
 * ```
 */
export class Sha256 {
  #hash = createHash("sha256");

  /** Adds data; returns this for chaining. */
  update(data: string | Uint8Array): this {
    this.#hash.update(data);
    return this;
  }

  /** Finishes and returns the lowercase hex digest. */
  hex(): Sha256Hex {
    return this.#hash.digest("hex");
  }
}

/**
 * Whether a string is a lowercase hex SHA-256 digest.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isSha256Hex, sha256Hex } from "./hash.ts";
 * assert(isSha256Hex(sha256Hex("x")) && !isSha256Hex("xyz"));
 * ```
 */
export function isSha256Hex(value: string): boolean {
  return /^[0-9a-f]{64}$/.test(value);
}
