/**
 * Reading and writing tar streams (POSIX ustar with PAX extended headers), the format
 * `docker cp` speaks. Only what sealing and staging need: regular files, folders, symlinks and
 * hard links; ownership is written as numbers and never read back into a seal.
 *
 * @module
 */

import { UnsealableWorkspaceError } from "./unsealable.ts";

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
 * import assert from "node:assert/strict";
 * import { packTar, parseTar } from "./tar.ts";
 * const tar = packTar([{ path: "a.txt", type: "file", mode: 0o644, data: new Uint8Array([104, 105]) }]);
 * assert(parseTar(tar)[0].path === "a.txt");
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
 * import assert from "node:assert/strict";
 * import { AGENT_OWNER } from "./sandbox.ts";
 * import { packOwnedTar } from "./tar.ts";
 * const tar = packOwnedTar([
 *   { entries: [{ path: "workspace", type: "dir", mode: 0o755 }], options: AGENT_OWNER },
 *   { entries: [{ path: "verdict/tests", type: "dir", mode: 0o755 }], options: { uid: 0, gid: 0 } },
 * ]);
 * assert(tar.length % 512 === 0);
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
  const unpacker = new TarDecoder();
  let offset = 0;
  while (offset + BLOCK <= bytes.length) {
    const block = bytes.subarray(offset, offset + BLOCK);
    if (isEndBlock(block)) break;
    const header = unpacker.sized(readHeader(block, offset));
    const dataStart = offset + BLOCK;
    const dataEnd = dataStart + header.size;
    if (dataEnd > bytes.length) {
      throw new Error(`tar stream truncated inside the entry at ${offset}`);
    }
    unpacker.add(header, bytes.subarray(dataStart, dataEnd));
    offset = dataStart + Math.ceil(header.size / BLOCK) * BLOCK;
  }
  return unpacker.entries;
}

/** An entry as its header describes it, before its bytes are read. */
export interface TarEntryHeader {
  /** Its path. */
  path: string;
  /** What it is (a hard link is a `file`: it is sealed as a copy). */
  type: TarEntry["type"];
  /** The bytes it stands for: a file's size, a hard link's target's size, else 0. */
  size: number;
}

/** How {@linkcode readTarStream} reads. */
export interface ReadTarOptions {
  /**
   * The stream holds archives one after another (as GNU tar's `--ignore-zeros` reads them): the
   * end-of-archive blocks between them are skipped and reading goes on to the stream's end.
   */
  concatenated?: boolean;
}

/**
 * Parses a tar stream as it arrives, so that nothing is read that `admit` refuses: it sees each
 * entry's header before the entry's bytes are read, and throws to stop (the caller then cancels
 * the stream's source). Memory holds the entries admitted, never an entry refused.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { packTar, readTarStream } from "./tar.ts";
 * const tar = packTar([{ path: "a.txt", type: "file", mode: 0o644, data: new Uint8Array([104]) }]);
 * const entries = await readTarStream(ReadableStream.from([tar]), (entry) => {
 *   if (entry.size > 1024) throw new Error(`${entry.path} is too big`);
 * });
 * assert(entries[0].path === "a.txt");
 * ```
 * @throws {Error} on a bad header checksum or a truncated stream, or what `admit` throws.
 */
export async function readTarStream(
  stream: ReadableStream<Uint8Array>,
  admit: (entry: TarEntryHeader) => void = () => {},
  options: ReadTarOptions = {},
): Promise<TarEntry[]> {
  const reader = new ChunkReader(stream.getReader());
  const unpacker = new TarDecoder();
  try {
    while (true) {
      const offset = reader.position;
      const block = await reader.read(BLOCK);
      if (block === undefined) break;
      if (isEndBlock(block)) {
        if (options.concatenated) continue;
        break;
      }
      const header = unpacker.sized(readHeader(block, offset));
      if (isMetadata(header.typeflag) && header.size > MAX_METADATA_BYTES) {
        throw new Error(`tar metadata entry at ${offset} is ${header.size} bytes, too large`);
      }
      const described = unpacker.peek(header);
      if (described) admit(described);
      const data = await reader.read(header.size);
      if (data === undefined) throw new Error(`tar stream truncated inside the entry at ${offset}`);
      unpacker.add(header, data);
      await reader.skip((BLOCK - (header.size % BLOCK)) % BLOCK);
    }
    await reader.drain(); // the end-of-archive padding, so that the writer can finish
    return unpacker.entries;
  } catch (error) {
    await reader.cancel();
    throw error;
  }
}

// PAX records and GNU long names name one entry: a path of at most a few KB.
const MAX_METADATA_BYTES = 1024 * 1024;

interface RawHeader {
  block: Uint8Array;
  typeflag: string;
  size: number;
}

function readHeader(block: Uint8Array, offset: number): RawHeader {
  verifyChecksum(block, offset);
  return {
    block,
    typeflag: String.fromCharCode(block[156] || 48),
    size: readNumber(block, 124, 12),
  };
}

function isEndBlock(block: Uint8Array): boolean {
  return block.every((byte) => byte === 0);
}

function isMetadata(typeflag: string): boolean {
  return typeflag === "x" || typeflag === "g" || typeflag === "L" || typeflag === "K";
}

/** Turns headers and their bytes into entries: long names, PAX records and hard links. */
class TarDecoder {
  readonly entries: TarEntry[] = [];
  readonly #files = new Map<string, { data: Uint8Array; mode: number }>();
  #pax: Record<string, string> = {};
  #longName: string | undefined;
  #longLink: string | undefined;

  /**
   * The header with its real size: past 8 GiB the header's own field cannot hold it and a PAX
   * `size` record gives it (`docker cp` writes a 0 there), as for a sparse file of 9 GiB.
   */
  sized(header: RawHeader): RawHeader {
    const size = this.#pax.size;
    if (isMetadata(header.typeflag) || size === undefined) return header;
    if (!/^\d+$/.test(size)) throw new Error(`tar PAX size record '${size}' is not a number`);
    return { ...header, size: Number(size) };
  }

  /** What a non-metadata entry is, before its bytes are read; undefined for metadata. */
  peek(header: RawHeader): TarEntryHeader | undefined {
    if (isMetadata(header.typeflag)) return undefined;
    const { path, linkname } = this.#names(header.block);
    switch (header.typeflag) {
      case "0":
      case "7":
        return { path, type: "file", size: header.size };
      case "1":
        return { path, type: "file", size: this.#linked(path, linkname).data.length };
      case "5":
        return { path, type: "dir", size: 0 };
      case "2":
        return { path, type: "symlink", size: 0 };
      default:
        return { path, type: "other", size: header.size };
    }
  }

  /** Takes in one header and its bytes. */
  add(header: RawHeader, data: Uint8Array): void {
    const { typeflag, block } = header;
    if (typeflag === "x") {
      this.#pax = parsePax(data);
      return;
    }
    if (typeflag === "g") return;
    if (typeflag === "L") {
      this.#longName = readCString(data, 0, data.length);
      return;
    }
    if (typeflag === "K") {
      this.#longLink = readCString(data, 0, data.length);
      return;
    }
    const { path, linkname } = this.#names(block);
    this.#pax = {};
    this.#longName = this.#longLink = undefined;
    const mode = readNumber(block, 100, 8) & 0o7777;
    if (typeflag === "0" || typeflag === "7") {
      const copy = data.slice();
      this.#files.set(path, { data: copy, mode });
      this.entries.push({ path, type: "file", mode, data: copy });
    } else if (typeflag === "1") {
      // A hard link shares its target's inode: same bytes, same mode.
      const original = this.#linked(path, linkname);
      this.entries.push({ path, type: "file", mode: original.mode, data: original.data });
    } else if (typeflag === "5") {
      this.entries.push({ path, type: "dir", mode });
    } else if (typeflag === "2") {
      this.entries.push({ path, type: "symlink", target: linkname });
    } else {
      this.entries.push({ path, type: "other", mode, typeflag });
    }
  }

  #names(block: Uint8Array): { path: string; linkname: string } {
    const prefix = readCString(block, 345, 155);
    const rawName = this.#pax.path ?? this.#longName ??
      (prefix ? `${prefix}/${readCString(block, 0, 100)}` : readCString(block, 0, 100));
    const linkname = this.#pax.linkpath ?? this.#longLink ?? readCString(block, 157, 100);
    return { path: rawName.replace(/\/+$/, ""), linkname };
  }

  #linked(path: string, linkname: string): { data: Uint8Array; mode: number } {
    const original = this.#files.get(linkname.replace(/\/+$/, ""));
    if (original === undefined) throw new Error(`tar hard link ${path} names unknown ${linkname}`);
    return original;
  }
}

/** Reads exact byte counts from a stream of chunks of any size. */
class ChunkReader {
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  #chunk: Uint8Array = new Uint8Array(0);
  #offset = 0;
  #done = false;
  /** Bytes handed out or skipped so far. */
  position = 0;

  constructor(reader: ReadableStreamDefaultReader<Uint8Array>) {
    this.#reader = reader;
  }

  /** The next `length` bytes; undefined when the stream ends first. */
  async read(length: number): Promise<Uint8Array | undefined> {
    if (this.#chunk.length - this.#offset >= length) return this.#take(length);
    const out = new Uint8Array(length);
    let filled = 0;
    while (filled < length) {
      if (this.#offset === this.#chunk.length && !(await this.#next())) return undefined;
      const part = this.#take(Math.min(length - filled, this.#chunk.length - this.#offset));
      out.set(part, filled);
      filled += part.length;
    }
    return out;
  }

  /** Skips `length` bytes (fewer when the stream ends first). */
  async skip(length: number): Promise<void> {
    let left = length;
    while (left > 0) {
      if (this.#offset === this.#chunk.length && !(await this.#next())) return;
      left -= this.#take(Math.min(left, this.#chunk.length - this.#offset)).length;
    }
  }

  /** Reads the stream to its end, discarding what is left. */
  async drain(): Promise<void> {
    while (await this.#next());
  }

  /** Stops the stream's source. */
  async cancel(): Promise<void> {
    await this.#reader.cancel().catch(() => {});
  }

  #take(length: number): Uint8Array {
    const part = this.#chunk.subarray(this.#offset, this.#offset + length);
    this.#offset += length;
    this.position += length;
    return part;
  }

  async #next(): Promise<boolean> {
    if (this.#done) return false;
    const { value, done } = await this.#reader.read();
    if (done) {
      this.#done = true;
      return false;
    }
    this.#chunk = value;
    this.#offset = 0;
    return true;
  }
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
