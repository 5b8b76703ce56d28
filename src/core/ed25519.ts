/**
 * Ed25519 signatures through Web Crypto, for signed runs: a signing key from its text form (the
 * 32-byte seed or its PKCS#8 DER, in base64 or base64url), its public key as base64url of its 32
 * raw bytes, a short fingerprint people can compare, and signing and checking bytes.
 *
 * @module
 */
import { sha256Hex } from "./hash.ts";

/**
 * A private key with its public half, as text.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type SigningKey, signingKey } from "./ed25519.ts";
 * const key: SigningKey = await signingKey(btoa("s".repeat(32)));
 * assert.equal(key.privateKey.type, "private");
 * ```
 */
export interface SigningKey {
  /** The private key (not extractable). */
  privateKey: CryptoKey;
  /** The public key: base64url of its 32 raw bytes. */
  publicKey: string;
}

// PKCS#8 DER of an Ed25519 key is this prefix and the 32-byte seed.
const PKCS8_PREFIX = [
  0x30,
  0x2e,
  0x02,
  0x01,
  0x00,
  0x30,
  0x05,
  0x06,
  0x03,
  0x2b,
  0x65,
  0x70,
  0x04,
  0x22,
  0x04,
  0x20,
];

/**
 * The signing key a text names: the 32-byte seed or its 48-byte PKCS#8 DER, base64 or base64url.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { signingKey } from "./ed25519.ts";
 * const key = await signingKey(btoa(String.fromCharCode(...new Uint8Array(32).fill(7))));
 * assert.equal(key.publicKey.length, 43);
 * ```
 * @throws {RangeError} saying what the text is not, when it is not such a key.
 */
export async function signingKey(text: string): Promise<SigningKey> {
  const bytes = fromBase64(text.trim());
  if (bytes === undefined) throw new RangeError("it is not base64");
  const der = bytes.length === 32
    ? new Uint8Array([...PKCS8_PREFIX, ...bytes])
    : bytes.length === 48 && PKCS8_PREFIX.every((byte, index) => bytes[index] === byte)
    ? bytes
    : undefined;
  if (der === undefined) {
    throw new RangeError(
      `it is ${bytes.length} bytes, neither an Ed25519 seed (32) nor its PKCS#8 DER (48)`,
    );
  }
  const extractable = await crypto.subtle.importKey("pkcs8", der, "Ed25519", true, ["sign"]);
  const jwk = await crypto.subtle.exportKey("jwk", extractable);
  const privateKey = await crypto.subtle.importKey("pkcs8", der, "Ed25519", false, ["sign"]);
  return { privateKey, publicKey: jwk.x! };
}

/**
 * A public key's fingerprint: `ed25519:` and the first 16 hex digits of its sha256.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { keyFingerprint } from "./ed25519.ts";
 * assert.match(keyFingerprint("A".repeat(43)), /^ed25519:[0-9a-f]{16}$/);
 * ```
 */
export function keyFingerprint(publicKey: string): string {
  return `ed25519:${
    sha256Hex(fromBase64(publicKey) ?? new TextEncoder().encode(publicKey)).slice(0, 16)
  }`;
}

/**
 * Signs `data`; the signature is base64url.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { signBytes, signingKey, verifyBytes } from "./ed25519.ts";
 * const key = await signingKey(btoa("k".repeat(32)));
 * const data = new TextEncoder().encode("run");
 * assert(await verifyBytes(key.publicKey, await signBytes(key, data), data));
 * ```
 */
export async function signBytes(
  key: SigningKey,
  data: Uint8Array<ArrayBuffer>,
): Promise<string> {
  const signature = await crypto.subtle.sign("Ed25519", key.privateKey, data);
  return toBase64Url(new Uint8Array(signature));
}

/**
 * Whether `signature` (base64url) is `publicKey`'s signature of `data`; false for anything that is
 * not a key or a signature.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { verifyBytes } from "./ed25519.ts";
 * assert.equal(await verifyBytes("not a key", "not a signature", new Uint8Array()), false);
 * ```
 */
export async function verifyBytes(
  publicKey: string,
  signature: string,
  data: Uint8Array<ArrayBuffer>,
): Promise<boolean> {
  const raw = fromBase64(publicKey);
  const bytes = fromBase64(signature);
  if (raw?.length !== 32 || bytes?.length !== 64) return false;
  const key = await crypto.subtle.importKey("raw", raw, "Ed25519", false, ["verify"]);
  return await crypto.subtle.verify("Ed25519", key, bytes, data);
}

function fromBase64(text: string): Uint8Array<ArrayBuffer> | undefined {
  if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(text)) return undefined;
  const standard = text.replace(/-/g, "+").replace(/_/g, "/");
  try {
    return Uint8Array.from(
      atob(standard.padEnd(Math.ceil(standard.length / 4) * 4, "=")),
      (c) => c.charCodeAt(0),
    );
  } catch {
    return undefined;
  }
}

function toBase64Url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(
    /=+$/,
    "",
  );
}
