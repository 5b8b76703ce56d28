/**
 * Byte order of strings, as their UTF-8 encodings compare: the order paths are sorted in, the
 * same on every platform and in every language.
 *
 * @module
 */

/**
 * Orders strings by their UTF-8 bytes, the order every hash over paths uses.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { compareBytes } from "./compare_bytes.ts";
 * assert(compareBytes("B", "a") < 0 && compareBytes("a", "a") === 0);
 * ```
 */
export function compareBytes(a: string, b: string): number {
  // For the strings we compare (paths), UTF-16 code unit order equals UTF-8 byte order except for
  // surrogate pairs versus U+E000..U+FFFF; compare bytes to be exact.
  if (a === b) return 0;
  const encoder = new TextEncoder();
  const x = encoder.encode(a);
  const y = encoder.encode(b);
  const length = Math.min(x.length, y.length);
  for (let i = 0; i < length; i++) {
    if (x[i] !== y[i]) return x[i] - y[i];
  }
  return x.length - y.length;
}
