/**
 * Reads an npm package tarball as it streams in: hashes its bytes (SHA-256, and SHA-512 for the
 * registry's integrity), decompresses it, reads `package/package.json`, and writes the entries
 * asked for to files, piece by piece.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { dirname } from "node:path";
import { readTar, TarFormatError } from "./_tar_reader.ts";

/** The bytes are not an npm package tarball: not gzip, not tar, or no `package/package.json`. */
export class PackageFormatError extends Error {
  /** Makes the error. */
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "PackageFormatError";
  }
}

/** The stream the tarball came from failed (a dropped download, an unreadable file). */
export class PackageSourceError extends Error {
  /** Wraps the source's error. */
  constructor(cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause), { cause });
    this.name = "PackageSourceError";
  }
}

/** A file extracted from a tarball. */
export interface ExtractedFile {
  /** Where it was written. */
  file: string;
  /** SHA-256 of its content (hex). */
  sha256: string;
  /** Its length in bytes. */
  size: number;
}

/** What a package tarball held, and its hashes. */
export interface PackageTarball {
  /** `name` of its `package/package.json`. */
  name: string;
  /** `version` of its `package/package.json`. */
  version: string;
  /** SHA-256 of the tarball's bytes (hex). */
  sha256: string;
  /** SHA-512 of the tarball's bytes (base64, as in an SRI `sha512-...` string). */
  sha512: string;
  /** The entries asked for that were there, by path inside the tarball. */
  extracted: Map<string, ExtractedFile>;
}

const MANIFEST_PATH = "package/package.json";
const MAX_MANIFEST_BYTES = 1 << 20;
const GZIP_MAGIC = [0x1f, 0x8b];

/**
 * Reads a package tarball to its end, writing each entry named in `extract` (path inside the
 * tarball → file to write, created with mode 0755, its missing parent folders too) as it streams.
 *
 * @throws {PackageFormatError} when the bytes are not a gzip-compressed tar holding a
 * `package/package.json` with a name and a version.
 * @throws {PackageSourceError} when the source stream fails.
 */
export async function readPackageTarball(
  source: ReadableStream<Uint8Array>,
  extract: ReadonlyMap<string, string>,
): Promise<PackageTarball> {
  const sha256 = createHash("sha256");
  const sha512 = createHash("sha512");
  let manifest: Uint8Array | undefined;
  const extracted = new Map<string, ExtractedFile>();
  const tar = hashed(source, (chunk) => {
    sha256.update(chunk);
    sha512.update(chunk);
  }).pipeThrough(gunzip());
  try {
    await readTar(tar, async (entry, content) => {
      if (entry.type !== "file") return;
      if (entry.path === MANIFEST_PATH && entry.size <= MAX_MANIFEST_BYTES) {
        manifest = await collect(content, entry.size);
      }
      const to = extract.get(entry.path);
      if (to !== undefined) extracted.set(entry.path, await writeFile(to, content, entry.size));
    });
  } catch (error) {
    if (error instanceof PackageSourceError || error instanceof PackageFormatError) throw error;
    if (error instanceof TarFormatError) throw new PackageFormatError(error.message);
    // What remains from the pipeline is the decompressor refusing the bytes.
    if (error instanceof TypeError) {
      throw new PackageFormatError(`its gzip data is damaged (${error.message})`, { cause: error });
    }
    throw error;
  }
  if (manifest === undefined) {
    throw new PackageFormatError(`it holds no ${MANIFEST_PATH}`);
  }
  const { name, version } = parseManifest(manifest);
  return {
    name,
    version,
    sha256: sha256.digest("hex"),
    sha512: sha512.digest("base64"),
    extracted,
  };
}

// DecompressionStream's writable side is typed for any BufferSource; bytes are what it gets here.
function gunzip(): TransformStream<Uint8Array, Uint8Array> {
  return new DecompressionStream("gzip") as unknown as TransformStream<Uint8Array, Uint8Array>;
}

// The source's bytes, passed on and watched; its failures marked as the source's.
function hashed(
  source: ReadableStream<Uint8Array>,
  watch: (chunk: Uint8Array) => void,
): ReadableStream<Uint8Array> {
  const reader = source.getReader();
  const head: number[] = [];
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      let result;
      try {
        result = await reader.read();
      } catch (error) {
        throw new PackageSourceError(error);
      }
      if (result.done) {
        controller.close();
        return;
      }
      for (const byte of result.value.subarray(0, GZIP_MAGIC.length - head.length)) head.push(byte);
      if (head.some((byte, i) => byte !== GZIP_MAGIC[i])) {
        throw new PackageFormatError("it is not gzip-compressed (an npm tarball is a .tgz)");
      }
      watch(result.value);
      controller.enqueue(result.value);
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}

async function collect(content: AsyncIterable<Uint8Array>, size: number): Promise<Uint8Array> {
  const out = new Uint8Array(size);
  let filled = 0;
  for await (const piece of content) {
    out.set(piece, filled);
    filled += piece.length;
  }
  return out;
}

async function writeFile(
  path: string,
  content: AsyncIterable<Uint8Array>,
  size: number,
): Promise<ExtractedFile> {
  const hash = createHash("sha256");
  await makeFolder(dirname(path));
  {
    using file = await Deno.open(path, { write: true, createNew: true, mode: 0o755 });
    for await (const piece of content) {
      hash.update(piece);
      let written = 0;
      while (written < piece.length) written += await file.write(piece.subarray(written));
    }
  }
  await Deno.chmod(path, 0o755);
  return { file: path, sha256: hash.digest("hex"), size };
}

// Makes a folder and its missing parents, each with mode 0755 (whatever the umask).
async function makeFolder(path: string): Promise<void> {
  try {
    await Deno.stat(path);
    return;
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  await makeFolder(dirname(path));
  await Deno.mkdir(path);
  await Deno.chmod(path, 0o755);
}

function parseManifest(bytes: Uint8Array): { name: string; version: string } {
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    throw new PackageFormatError(`its ${MANIFEST_PATH} is not JSON`);
  }
  const { name, version } = (value ?? {}) as { name?: unknown; version?: unknown };
  if (typeof name !== "string" || typeof version !== "string") {
    throw new PackageFormatError(`its ${MANIFEST_PATH} has no name and version`);
  }
  return { name, version };
}
