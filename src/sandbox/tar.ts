/**
 * Reading and writing tar streams (POSIX ustar with PAX extended headers), the format
 * `docker cp` speaks. Only what sealing and staging need: regular files, folders, symlinks and
 * hard links; ownership is written as numbers and never read back into a seal.
 *
 * @module
 */

const BLOCK = 512;
const encoder = new TextEncoder();
const decoder = new TextDecoder();
const strictDecoder = new TextDecoder("utf-8", { fatal: true });

/**
 * A tar entry whose name or link target is not valid UTF-8. Seals name files as text, so such a
 * workspace cannot be sealed faithfully (two such names could even read the same).
 *
 * @example
 * ```ts
 * import { NonUtf8NameError } from "./tar.ts";
 * console.assert(new NonUtf8NameError(new Uint8Array([0x61, 0xff])).message.includes("a\\xff"));
 * ```
 */
export class NonUtf8NameError extends Error {
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

/** Ownership and time written into packed entries. */
export interface PackOptions {
  /** Numeric owner of every entry. Default 0. */
  uid?: number;
  /** Numeric group of every entry. Default 0. */
  gid?: number;
  /** Modification time of every entry, in seconds since the epoch. Default 1,700,000,000. */
  mtime?: number;
}

/** Ownership for a subset of entries, by path prefix. */
export interface OwnedEntries {
  /** The entries. */
  entries: readonly TarEntry[];
  /** Their owner. */
  options: PackOptions;
}

/**
 * Packs entries into a tar stream. Paths longer than ustar allows get a PAX `path` header.
 *
 * @example
 * ```ts
 * import { packTar, parseTar } from "./tar.ts";
 * const tar = packTar([{ path: "a.txt", type: "file", mode: 0o644, data: new Uint8Array([104, 105]) }]);
 * console.assert(parseTar(tar)[0].path === "a.txt");
 * ```
 */
export function packTar(entries: readonly TarEntry[], options: PackOptions = {}): Uint8Array {
  return packOwnedTar([{ entries, options }]);
}

/**
 * Packs groups of entries with different owners into one tar stream.
 *
 * @example
 * ```ts
 * import { packOwnedTar } from "./tar.ts";
 * const tar = packOwnedTar([
 *   { entries: [{ path: "workspace", type: "dir", mode: 0o755 }], options: { uid: 1000, gid: 1000 } },
 *   { entries: [{ path: "verdict/tests", type: "dir", mode: 0o755 }], options: { uid: 0, gid: 0 } },
 * ]);
 * console.assert(tar.length % 512 === 0);
 * ```
 */
export function packOwnedTar(groups: readonly OwnedEntries[]): Uint8Array {
  const chunks: Uint8Array[] = [];
  for (const { entries, options } of groups) {
    for (const entry of entries) {
      if (entry.type === "other") continue;
      const name = entry.type === "dir" ? `${entry.path}/` : entry.path;
      const target = entry.type === "symlink" ? entry.target : "";
      const pax: Record<string, string> = {};
      if (encoder.encode(name).length > 100) pax.path = name;
      if (encoder.encode(target).length > 100) pax.linkpath = target;
      if (Object.keys(pax).length > 0) {
        const body = encoder.encode(paxRecords(pax));
        chunks.push(
          header({ name: "PaxHeader", mode: 0o644, size: body.length, typeflag: "x" }, options),
        );
        chunks.push(body, padding(body.length));
      }
      const size = entry.type === "file" ? entry.data.length : 0;
      chunks.push(header({
        name: pax.path ? truncateUtf8(name, 100) : name,
        mode: entry.type === "symlink" ? 0o777 : entry.mode,
        size,
        typeflag: entry.type === "file" ? "0" : entry.type === "dir" ? "5" : "2",
        linkname: pax.linkpath ? truncateUtf8(target, 100) : target,
      }, options));
      if (entry.type === "file") chunks.push(entry.data, padding(size));
    }
  }
  chunks.push(new Uint8Array(BLOCK * 2));
  return concat(chunks);
}

/**
 * Parses a tar stream into entries. Hard links become copies of the file they name; PAX and GNU
 * long names are honoured; devices, fifos and the like come back as `other`.
 *
 * @throws {Error} on a bad header checksum or a truncated stream.
 */
export function parseTar(bytes: Uint8Array): TarEntry[] {
  const entries: TarEntry[] = [];
  const files = new Map<string, { data: Uint8Array; mode: number }>();
  let offset = 0;
  let pax: Record<string, string> = {};
  let longName: string | undefined;
  let longLink: string | undefined;
  while (offset + BLOCK <= bytes.length) {
    const block = bytes.subarray(offset, offset + BLOCK);
    if (block.every((byte) => byte === 0)) break;
    verifyChecksum(block, offset);
    const typeflag = String.fromCharCode(block[156] || 48);
    const size = readNumber(block, 124, 12);
    const dataStart = offset + BLOCK;
    const dataEnd = dataStart + size;
    if (dataEnd > bytes.length) {
      throw new Error(`tar stream truncated inside the entry at ${offset}`);
    }
    const data = bytes.subarray(dataStart, dataEnd);
    offset = dataStart + Math.ceil(size / BLOCK) * BLOCK;
    if (typeflag === "x") {
      pax = parsePax(data);
      continue;
    }
    if (typeflag === "g") continue;
    if (typeflag === "L") {
      longName = readCString(data, 0, data.length);
      continue;
    }
    if (typeflag === "K") {
      longLink = readCString(data, 0, data.length);
      continue;
    }
    const prefix = readCString(block, 345, 155);
    const rawName = pax.path ?? longName ??
      (prefix ? `${prefix}/${readCString(block, 0, 100)}` : readCString(block, 0, 100));
    const linkname = pax.linkpath ?? longLink ?? readCString(block, 157, 100);
    pax = {};
    longName = longLink = undefined;
    const path = rawName.replace(/\/+$/, "");
    const mode = readNumber(block, 100, 8) & 0o7777;
    if (typeflag === "0" || typeflag === "7") {
      const copy = data.slice();
      files.set(path, { data: copy, mode });
      entries.push({ path, type: "file", mode, data: copy });
    } else if (typeflag === "1") {
      const original = files.get(linkname.replace(/\/+$/, ""));
      if (original === undefined) {
        throw new Error(`tar hard link ${path} names unknown ${linkname}`);
      }
      // A hard link shares its target's inode: same bytes, same mode.
      entries.push({ path, type: "file", mode: original.mode, data: original.data });
    } else if (typeflag === "5") {
      entries.push({ path, type: "dir", mode });
    } else if (typeflag === "2") {
      entries.push({ path, type: "symlink", target: linkname });
    } else {
      entries.push({ path, type: "other", mode, typeflag });
    }
  }
  return entries;
}

interface HeaderFields {
  name: string;
  mode: number;
  size: number;
  typeflag: string;
  linkname?: string;
}

function header(fields: HeaderFields, options: PackOptions): Uint8Array {
  const block = new Uint8Array(BLOCK);
  writeString(block, 0, 100, fields.name);
  writeOctal(block, 100, 8, fields.mode);
  writeOctal(block, 108, 8, options.uid ?? 0);
  writeOctal(block, 116, 8, options.gid ?? 0);
  writeOctal(block, 124, 12, fields.size);
  writeOctal(block, 136, 12, options.mtime ?? 1_700_000_000);
  block[156] = fields.typeflag.charCodeAt(0);
  writeString(block, 157, 100, fields.linkname ?? "");
  writeString(block, 257, 6, "ustar\0");
  writeString(block, 263, 2, "00");
  block.fill(0x20, 148, 156);
  const checksum = block.reduce((sum, byte) => sum + byte, 0);
  writeString(block, 148, 8, checksum.toString(8).padStart(6, "0") + "\0 ");
  return block;
}

function verifyChecksum(block: Uint8Array, offset: number): void {
  const stored = readNumber(block, 148, 8);
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : block[i];
  if (sum !== stored) throw new Error(`tar header checksum mismatch at byte ${offset}`);
}

function writeString(block: Uint8Array, offset: number, length: number, value: string): void {
  const bytes = encoder.encode(value);
  if (bytes.length > length) throw new Error(`tar field too long: ${value}`);
  block.set(bytes, offset);
}

function writeOctal(block: Uint8Array, offset: number, length: number, value: number): void {
  const text = Math.trunc(value).toString(8);
  if (text.length > length - 1) throw new Error(`tar number ${value} does not fit ${length} bytes`);
  writeString(block, offset, length, text.padStart(length - 1, "0") + "\0");
}

function readNumber(block: Uint8Array, offset: number, length: number): number {
  if (block[offset] & 0x80) {
    // Base-256 (GNU) for values that do not fit in octal.
    let value = 0;
    for (let i = offset + 1; i < offset + length; i++) value = value * 256 + block[i];
    return value;
  }
  const text = readCString(block, offset, length).trim();
  return text === "" ? 0 : parseInt(text, 8);
}

function readCString(bytes: Uint8Array, offset: number, length: number): string {
  const slice = bytes.subarray(offset, offset + length);
  const end = slice.indexOf(0);
  return nameText(end === -1 ? slice : slice.subarray(0, end));
}

function nameText(bytes: Uint8Array): string {
  try {
    return strictDecoder.decode(bytes);
  } catch {
    throw new NonUtf8NameError(bytes);
  }
}

function paxRecords(values: Record<string, string>): string {
  let text = "";
  for (const [key, value] of Object.entries(values)) {
    // A record's length counts its own decimal digits: iterate until the count is stable.
    const bodyLength = encoder.encode(` ${key}=${value}\n`).length;
    let length = bodyLength;
    while (bodyLength + String(length).length !== length) {
      length = bodyLength + String(length).length;
    }
    text += `${length} ${key}=${value}\n`;
  }
  return text;
}

function parsePax(data: Uint8Array): Record<string, string> {
  const values: Record<string, string> = {};
  let offset = 0;
  while (offset < data.length) {
    const space = data.indexOf(0x20, offset);
    if (space === -1) break;
    const length = parseInt(decoder.decode(data.subarray(offset, space)), 10);
    if (!(length > 0)) break;
    const record = data.subarray(space + 1, offset + length - 1);
    const equals = record.indexOf(0x3d);
    if (equals > 0) {
      const key = decoder.decode(record.subarray(0, equals));
      const value = record.subarray(equals + 1);
      // Names must be exact; other records (extended attributes among them) may hold any bytes.
      values[key] = key === "path" || key === "linkpath" ? nameText(value) : decoder.decode(value);
    }
    offset += length;
  }
  return values;
}

function truncateUtf8(text: string, maxBytes: number): string {
  let result = text;
  while (encoder.encode(result).length > maxBytes) result = result.slice(0, -1);
  return result;
}

function padding(size: number): Uint8Array {
  return new Uint8Array((BLOCK - (size % BLOCK)) % BLOCK);
}

function concat(chunks: readonly Uint8Array[]): Uint8Array {
  const total = chunks.reduce((sum, chunk) => sum + chunk.length, 0);
  const out = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.length;
  }
  return out;
}
