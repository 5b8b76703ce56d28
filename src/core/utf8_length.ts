/**
 * The size of a string in UTF-8, counted without encoding it: a large request body is measured
 * without a second copy of it in memory.
 *
 * @module
 */

/**
 * The number of bytes `text` takes in UTF-8 (a lone surrogate counts as the 3 bytes of U+FFFD, as
 * `TextEncoder` writes it).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { utf8Length } from "./utf8_length.ts";
 * assert.equal(utf8Length("aé€😀"), new TextEncoder().encode("aé€😀").byteLength);
 * assert.equal(utf8Length("\ud800"), 3);
 * ```
 */
export function utf8Length(text: string): number {
  // Most bodies are ASCII (JSON escapes the rest only sometimes): one native scan says so.
  if (!NOT_ASCII.test(text)) return text.length;
  let bytes = 0;
  for (let index = 0; index < text.length; index++) {
    const unit = text.charCodeAt(index);
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (unit >= 0xd800 && unit < 0xdc00 && index + 1 < text.length) {
      const next = text.charCodeAt(index + 1);
      if (next >= 0xdc00 && next < 0xe000) {
        bytes += 4;
        index++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}

// deno-lint-ignore no-control-regex
const NOT_ASCII = /[^\x00-\x7f]/;
