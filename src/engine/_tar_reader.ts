/**
 * Reading tar streams, whole ({@linkcode parseTar}) or as they arrive ({@linkcode readTarStream}):
 * ustar headers, PAX records and GNU long names, hard links read as copies of the file they name.
 *
 * @module
 */

import { ChunkReader } from "./_chunk_reader.ts";
import {
  BLOCK,
  nameText,
  readCString,
  readNumber,
  type TarEntry,
  type TarEntryHeader,
} from "./_tar_format.ts";

const decoder = new TextDecoder();

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

function verifyChecksum(block: Uint8Array, offset: number): void {
  const stored = readNumber(block, 148, 8);
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : block[i];
  if (sum !== stored) throw new Error(`tar header checksum mismatch at byte ${offset}`);
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
