/**
 * A folder on the host read into memory as a sorted list of entries: regular files with their
 * bytes, folders (empty ones included), and symlinks with their targets. Tar packing, sealing and
 * suite digests all start from this one representation.
 *
 * @module
 */
import { join } from "node:path";
import { compareBytes } from "../core/compare_bytes.ts";
import { InputError } from "../core/errors.ts";

/** One entry of a folder tree. Paths are relative, `/`-separated, without a trailing slash. */
export type TreeEntry =
  | { path: string; type: "file"; mode: number; data: Uint8Array }
  | { path: string; type: "dir"; mode: number }
  | { path: string; type: "symlink"; target: string };

/**
 * Reads a folder recursively. Entries are sorted by path (byte order), permission bits are kept
 * (`mode & 0o7777`), and symlinks are recorded, never followed.
 *
 * @throws {InputError} naming a file whose name is not UTF-8: paths are recorded as text, and the
 * lossy name the system hands back names no file (exit 2).
 * @example
 * ```ts
 * import { readTree } from "./file_tree.ts";
 * const entries = await readTree("tasks/fix-slugify/workspace");
 * console.log(entries.map((entry) => entry.path));
 * ```
 */
export async function readTree(root: string): Promise<TreeEntry[]> {
  const entries: TreeEntry[] = [];
  await walk(root, "", entries);
  return entries.sort((a, b) => compareBytes(a.path, b.path));
}

async function walk(root: string, relative: string, entries: TreeEntry[]): Promise<void> {
  for await (const item of Deno.readDir(join(root, relative))) {
    const path = relative ? `${relative}/${item.name}` : item.name;
    const full = join(root, path);
    const info = await lstatNamed(full);
    if (info.isSymlink) {
      entries.push({ path, type: "symlink", target: await Deno.readLink(full) });
    } else if (info.isDirectory) {
      entries.push({ path, type: "dir", mode: (info.mode ?? 0o755) & 0o7777 });
      await walk(root, path, entries);
    } else if (info.isFile) {
      entries.push({
        path,
        type: "file",
        mode: (info.mode ?? 0o644) & 0o7777,
        data: await Deno.readFile(full),
      });
    }
  }
}

// A name that is not UTF-8 comes back from readDir with U+FFFD in place of its bad bytes, and that
// name names no file.
async function lstatNamed(path: string): Promise<Deno.FileInfo> {
  try {
    return await Deno.lstat(path);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound) || !path.includes("\uFFFD")) throw error;
    throw new InputError({
      file: path,
      field: "",
      problem: "the file name is not valid UTF-8 (shown with \uFFFD for its bad bytes)",
      fix: "rename it with a UTF-8 name: Verdict records every path as text",
    });
  }
}
