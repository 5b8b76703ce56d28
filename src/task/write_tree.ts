/**
 * A folder tree ({@linkcode TreeEntry} list) written to disk: folders, files with their permission
 * bits (set after writing, so the umask does not change them; folders' last, so a read-only
 * folder can still be filled), and symlinks as links.
 *
 * @module
 */
import { dirname, join } from "node:path";
import type { TreeEntry } from "./file_tree.ts";

/**
 * Writes `entries` under `root` (created if missing). An entry's parent folders are created when
 * the list does not name them first.
 *
 * @example
 * ```ts ignore
 * import { writeTree } from "./write_tree.ts";
 * await writeTree("out/task", [
 *   { path: "tests", type: "dir", mode: 0o755 },
 *   { path: "tests/test.sh", type: "file", mode: 0o755, data: new TextEncoder().encode("exit 0") },
 * ]);
 * ```
 */
export async function writeTree(root: string, entries: readonly TreeEntry[]): Promise<void> {
  await Deno.mkdir(root, { recursive: true });
  const folders: { path: string; mode: number }[] = [];
  for (const entry of entries) {
    const path = join(root, entry.path);
    if (entry.type === "dir") {
      await Deno.mkdir(path, { recursive: true });
      folders.push({ path, mode: entry.mode });
      continue;
    }
    await Deno.mkdir(dirname(path), { recursive: true });
    if (entry.type === "symlink") await Deno.symlink(entry.target, path);
    else {
      await Deno.writeFile(path, entry.data);
      await Deno.chmod(path, entry.mode);
    }
  }
  // Folders last, deepest first: a read-only folder is filled before it is closed.
  for (const folder of folders.reverse()) await Deno.chmod(folder.path, folder.mode);
}
