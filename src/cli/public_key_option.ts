/**
 * Public keys given on the command line (`verify --key`, `merge --trust`): each the base64url of
 * an Ed25519 public key's 32 bytes, as `verify` prints it.
 *
 * @module
 */
import { UsageError } from "../core/errors.ts";
import type { OptionValues } from "./command.ts";

const PUBLIC_KEY = /^[A-Za-z0-9_-]{43}$/;

/**
 * The public keys a repeatable flag names, or undefined when it is absent.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { publicKeysOption } from "./public_key_option.ts";
 * const key = "A".repeat(43);
 * assert.deepEqual(publicKeysOption({ key: [key] }, "key"), [key]);
 * assert.throws(() => publicKeysOption({ key: ["ed25519:ab"] }, "key"), /--key ed25519:ab/);
 * ```
 * @throws {UsageError} naming the flag and the value when one is not a public key (exit 2).
 */
export function publicKeysOption(values: OptionValues, name: string): string[] | undefined {
  const value = values[name];
  if (value === undefined) return undefined;
  const keys = (Array.isArray(value) ? value : [value]).map(String);
  for (const key of keys) {
    if (PUBLIC_KEY.test(key)) continue;
    throw new UsageError(
      `--${name} ${key} is not a public key: give the signer's whole public key (43 base64url ` +
        `characters), as 'verdict verify' prints it after "public key", not its fingerprint`,
    );
  }
  return keys;
}
