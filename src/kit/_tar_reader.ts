/**
 * A streaming reader of tar archives (ustar, with GNU long names and pax paths), enough for npm
 * package tarballs: each entry's content is handed over in pieces as it arrives, so a 400 MB
 * binary inside is never held whole.
 *
 * @module
 */

/** One entry of a tar archive. */
export interface TarEntry {
  /** Its path as stored, such as `package/package.json`. */
  path: string;
  /** What it is. */
  type: "file" | "directory" | "other";
  /** Its content's length in bytes. */
  size: number;
  /** Its permission bits. */
  mode: number;
}

/** The bytes are not a tar archive, or one cut short. */
export class TarFormatError extends Error {
  /** Makes the error. */
  constructor(message: string) {
    super(message);
    this.name = "TarFormatError";
  }
}

const BLOCK = 512;

/**
 * Reads a (decompressed) tar stream to its end, calling `visit` with each entry and its content
 * in pieces. Content `visit` leaves unread is skipped. After the end-of-archive marker the rest of
 * the stream is still read, so whatever watches the stream (a hash) sees every byte.
 *
 * @throws {TarFormatError} when a header's checksum does not match, or the stream ends inside an
 * entry.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readTar } from "./_tar_reader.ts";
 * const paths: string[] = [];
 * await readTar(ReadableStream.from([new Uint8Array(1024)]), (entry) => {
 *   paths.push(entry.path);
 *   return Promise.resolve();
 * });
 * assert.deepEqual(paths, []); // two zero blocks: an empty archive
 * ```
 */
export async function readTar(
  stream: ReadableStream<Uint8Array>,
  visit: (entry: TarEntry, content: AsyncIterable<Uint8Array>) => Promise<void>,
): Promise<void> {
  const bytes = new ByteReader(stream.getReader());
  let longPath: string | undefined;
  try {
    while (true) {
      const header = await bytes.read(BLOCK);
      if (header === null || header.every((byte) => byte === 0)) break;
      const fields = parseHeader(header);
      const padded = Math.ceil(fields.size / BLOCK) * BLOCK;
      if (fields.flag === "L" || fields.flag === "x" || fields.flag === "g") {
        const body = await bytes.readExactly(padded);
        const text = new TextDecoder().decode(body.subarray(0, fields.size));
        if (fields.flag === "L") longPath = text.replace(/\0+$/, "");
        if (fields.flag === "x") longPath = paxPath(text) ?? longPath;
        continue;
      }
      const entry: TarEntry = {
        path: longPath ?? fields.path,
        type: fields.flag === "0" || fields.flag === "\0" || fields.flag === "7"
          ? "file"
          : fields.flag === "5"
          ? "directory"
          : "other",
        size: fields.size,
        mode: fields.mode,
      };
      longPath = undefined;
      const content = new EntryContent(bytes, fields.size);
      await visit(entry, content);
      await bytes.skip(fields.size - content.consumed + (padded - fields.size));
    }
    await bytes.drain();
  } catch (error) {
    await bytes.cancel(error);
    throw error;
  }
  bytes.release();
}

interface HeaderFields {
  path: string;
  mode: number;
  size: number;
  flag: string;
}

function parseHeader(header: Uint8Array): HeaderFields {
  const recorded = octal(header.subarray(148, 156));
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : header[i];
  if (recorded !== sum) {
    throw new TarFormatError("not a tar archive (a header's checksum does not match)");
  }
  const name = cString(header.subarray(0, 100));
  const ustar = cString(header.subarray(257, 263)) === "ustar";
  const prefix = ustar ? cString(header.subarray(345, 500)) : "";
  return {
    path: prefix ? `${prefix}/${name}` : name,
    mode: octal(header.subarray(100, 108)),
    size: size(header.subarray(124, 136)),
    flag: String.fromCharCode(header[156]),
  };
}

function cString(field: Uint8Array): string {
  const end = field.indexOf(0);
  return new TextDecoder().decode(end < 0 ? field : field.subarray(0, end));
}

function octal(field: Uint8Array): number {
  const text = cString(field).trim();
  if (text === "") return 0;
  if (!/^[0-7]+$/.test(text)) {
    throw new TarFormatError(`not a tar archive (a header field holds '${text.slice(0, 20)}')`);
  }
  return parseInt(text, 8);
}

// Sizes of 8 GiB and more are stored in base 256, flagged by the first byte's high bit.
function size(field: Uint8Array): number {
  if ((field[0] & 0x80) === 0) return octal(field);
  let value = field[0] & 0x7f;
  for (const byte of field.subarray(1)) value = value * 256 + byte;
  return value;
}

// Pax records: "LENGTH key=value\n".
function paxPath(text: string): string | undefined {
  for (const record of text.split("\n")) {
    const match = /^\d+ path=(.*)$/s.exec(record);
    if (match) return match[1];
  }
  return undefined;
}

/** An entry's content, read straight from the archive's stream. */
class EntryContent implements AsyncIterable<Uint8Array> {
  consumed = 0;
  constructor(private readonly bytes: ByteReader, private readonly size: number) {}

  async *[Symbol.asyncIterator](): AsyncIterator<Uint8Array> {
    while (this.consumed < this.size) {
      const piece = await this.bytes.next(this.size - this.consumed);
      this.consumed += piece.length;
      yield piece;
    }
  }
}

/** Pieces of a byte stream, taken by count. */
class ByteReader {
  #chunk: Uint8Array = new Uint8Array(0);
  #offset = 0;
  constructor(private readonly reader: ReadableStreamDefaultReader<Uint8Array>) {}

  /** Up to `most` bytes (at least one), without copying. */
  async next(most: number): Promise<Uint8Array> {
    while (this.#offset >= this.#chunk.length) {
      const { done, value } = await this.reader.read();
      if (done) throw new TarFormatError("the tar archive ends inside an entry: it is cut short");
      this.#chunk = value;
      this.#offset = 0;
    }
    const piece = this.#chunk.subarray(this.#offset, this.#offset + most);
    this.#offset += piece.length;
    return piece;
  }

  /** Exactly `count` bytes, or null when the stream ends before the first. */
  async read(count: number): Promise<Uint8Array | null> {
    if (this.#offset >= this.#chunk.length) {
      const { done, value } = await this.reader.read();
      if (done) return null;
      this.#chunk = value;
      this.#offset = 0;
    }
    return await this.readExactly(count);
  }

  async readExactly(count: number): Promise<Uint8Array> {
    const out = new Uint8Array(count);
    let filled = 0;
    while (filled < count) {
      const piece = await this.next(count - filled);
      out.set(piece, filled);
      filled += piece.length;
    }
    return out;
  }

  async skip(count: number): Promise<void> {
    let left = count;
    while (left > 0) left -= (await this.next(left)).length;
  }

  async drain(): Promise<void> {
    while (!(await this.reader.read()).done) { /* read to the end */ }
  }

  release(): void {
    this.reader.releaseLock();
  }

  /** Stops the stream's source (a download is not read on after a failure). */
  async cancel(reason: unknown): Promise<void> {
    await this.reader.cancel(reason).catch(() => {});
  }
}
