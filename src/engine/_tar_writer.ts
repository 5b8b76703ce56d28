/**
 * Writing tar streams: ustar headers, with a PAX extended header before an entry whose path or
 * link target is too long for ustar's fields. Ownership and times are the caller's, never the
 * host's.
 *
 * @module
 */

import { FIXED_FILE_TIME_S } from "./fixed_file_time.ts";
import { BLOCK, encoder, type TarEntry, writeOctal, writeString } from "./_tar_format.ts";

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
  writeOctal(block, 136, 12, options.mtime ?? FIXED_FILE_TIME_S);
  block[156] = fields.typeflag.charCodeAt(0);
  writeString(block, 157, 100, fields.linkname ?? "");
  writeString(block, 257, 6, "ustar\0");
  writeString(block, 263, 2, "00");
  block.fill(0x20, 148, 156);
  const checksum = block.reduce((sum, byte) => sum + byte, 0);
  writeString(block, 148, 8, checksum.toString(8).padStart(6, "0") + "\0 ");
  return block;
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
