/**
 * The ustar layout both directions share: the block size, the entry types, and the codecs of a
 * header's fields (octal and base-256 numbers, NUL-terminated names that must be UTF-8).
 *
 * @module
 */

import { UnsealableWorkspaceError } from "./unsealable.ts";

/** A tar stream is made of blocks of this many bytes. */
export const BLOCK = 512;
/** Encodes names and PAX records. */
export const encoder: TextEncoder = new TextEncoder();
const strictDecoder = new TextDecoder("utf-8", { fatal: true });

/**
 * A tar entry whose name or link target is not valid UTF-8. Seals name files as text, so such a
 * workspace cannot be sealed faithfully (two such names could even read the same).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { NonUtf8NameError } from "./tar.ts";
 * assert(new NonUtf8NameError(new Uint8Array([0x61, 0xff])).message.includes("a\\xff"));
 * ```
 */
export class NonUtf8NameError extends UnsealableWorkspaceError {
  /** Names the offending bytes, the unprintable ones as `\xNN`. */
  constructor(bytes: Uint8Array) {
    const shown = [...bytes].map((byte) =>
      byte >= 0x20 && byte < 0x7f ? String.fromCharCode(byte) : `\\x${byte.toString(16)}`
    ).join("");
    super(
      `the workspace holds a file name that is not valid UTF-8 ('${shown}'), which cannot be sealed`,
    );
    this.name = "NonUtf8NameError";
  }
}

/** One entry read from, or written to, a tar stream. */
export type TarEntry =
  | { path: string; type: "file"; mode: number; data: Uint8Array }
  | { path: string; type: "dir"; mode: number }
  | { path: string; type: "symlink"; target: string }
  | { path: string; type: "other"; mode: number; typeflag: string };

/** An entry as its header describes it, before its bytes are read. */
export interface TarEntryHeader {
  /** Its path. */
  path: string;
  /** What it is (a hard link is a `file`: it is sealed as a copy). */
  type: TarEntry["type"];
  /** The bytes it stands for: a file's size, a hard link's target's size, else 0. */
  size: number;
}

/** Writes `value` into a header field (it must fit). */
export function writeString(
  block: Uint8Array,
  offset: number,
  length: number,
  value: string,
): void {
  const bytes = encoder.encode(value);
  if (bytes.length > length) throw new Error(`tar field too long: ${value}`);
  block.set(bytes, offset);
}

/** Writes a number in octal, zero-padded and NUL-terminated, into a header field. */
export function writeOctal(block: Uint8Array, offset: number, length: number, value: number): void {
  const text = Math.trunc(value).toString(8);
  if (text.length > length - 1) throw new Error(`tar number ${value} does not fit ${length} bytes`);
  writeString(block, offset, length, text.padStart(length - 1, "0") + "\0");
}

/** Reads a numeric header field, octal or base-256. */
export function readNumber(block: Uint8Array, offset: number, length: number): number {
  if (block[offset] & 0x80) {
    // Base-256 (GNU) for values that do not fit in octal.
    let value = 0;
    for (let i = offset + 1; i < offset + length; i++) value = value * 256 + block[i];
    return value;
  }
  const text = readCString(block, offset, length).trim();
  return text === "" ? 0 : parseInt(text, 8);
}

/** Reads a NUL-terminated name field; a name that is not UTF-8 cannot be sealed. */
export function readCString(bytes: Uint8Array, offset: number, length: number): string {
  const slice = bytes.subarray(offset, offset + length);
  const end = slice.indexOf(0);
  return nameText(end === -1 ? slice : slice.subarray(0, end));
}

/**
 * A name's bytes as text.
 * @throws {NonUtf8NameError} when they are not UTF-8.
 */
export function nameText(bytes: Uint8Array): string {
  try {
    return strictDecoder.decode(bytes);
  } catch {
    throw new NonUtf8NameError(bytes);
  }
}
