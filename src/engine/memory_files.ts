/**
 * A container's file tree held in memory, for {@linkcode MemorySandbox}: tar streams unpack into
 * it as `docker cp` unpacks them, and paths pack out of it as `docker cp` packs them (the path's
 * last component first, then what it holds, depth first, each folder's names in byte order).
 * Ownership is not kept.
 *
 * @module
 */
import { posix } from "node:path";
import { compareBytes } from "../core/compare_bytes.ts";
import { packTar, parseTar, type TarEntry } from "./tar.ts";

/** One node of the tree. */
export type MemoryNode =
  | { type: "file"; mode: number; data: Uint8Array }
  | { type: "dir"; mode: number }
  | { type: "symlink"; target: string };

/**
 * A file tree keyed by absolute path.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MemoryFiles } from "./memory_files.ts";
 * const files = new MemoryFiles();
 * files.write("/workspace/a.txt", "hi\n");
 * assert(files.text("/workspace/a.txt") === "hi\n");
 * assert(files.get("/workspace")?.type === "dir");
 * ```
 */
export class MemoryFiles {
  readonly #nodes = new Map<string, MemoryNode>([["/", { type: "dir", mode: 0o755 }]]);

  /** The node at an absolute path, or undefined. */
  get(path: string): MemoryNode | undefined {
    return this.#nodes.get(absolute(path));
  }

  /** A file's bytes, or undefined when there is no file there. */
  read(path: string): Uint8Array | undefined {
    const node = this.get(path);
    return node?.type === "file" ? node.data : undefined;
  }

  /** A file's bytes as text, or undefined when there is no file there. */
  text(path: string): string | undefined {
    const data = this.read(path);
    return data === undefined ? undefined : new TextDecoder().decode(data);
  }

  /** Writes a file, replacing whatever was there and making missing folders (mode 0755). */
  write(path: string, data: Uint8Array | string, mode = 0o644): void {
    const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
    this.#set(absolute(path), { type: "file", mode, data: bytes });
  }

  /** Makes a folder (and missing parents), or changes an existing one's mode. */
  mkdir(path: string, mode = 0o755): void {
    this.#set(absolute(path), { type: "dir", mode });
  }

  /** Makes a symlink. */
  symlink(path: string, target: string): void {
    this.#set(absolute(path), { type: "symlink", target });
  }

  /** Removes a path and everything under it; absent is fine. */
  remove(path: string): void {
    const full = absolute(path);
    for (const key of [...this.#nodes.keys()]) {
      if (key !== "/" && (key === full || key.startsWith(childPrefix(full)))) {
        this.#nodes.delete(key);
      }
    }
  }

  /** Every path under `folder` (not `folder` itself), sorted by bytes. */
  paths(folder = "/"): string[] {
    const prefix = childPrefix(absolute(folder));
    return [...this.#nodes.keys()].filter((key) => key !== "/" && key.startsWith(prefix))
      .sort(compareBytes);
  }

  /**
   * Unpacks a tar stream at `destination`, as `docker cp -` does: entry paths are relative to it,
   * missing folders are made, a folder entry keeps what the folder holds and takes its mode.
   * @throws {Error} when the stream is not a tar stream.
   */
  unpack(tar: Uint8Array, destination: string): void {
    for (const entry of parseTar(tar)) {
      const path = posix.join(absolute(destination), entry.path);
      if (entry.type === "file") this.write(path, entry.data, entry.mode);
      else if (entry.type === "dir") this.mkdir(path, entry.mode);
      else if (entry.type === "symlink") this.symlink(path, entry.target);
    }
  }

  /**
   * Packs `path` as `docker cp CONTAINER:PATH -` does: entries named from the path's last
   * component, that entry first, then what a folder holds, depth first.
   * @throws {Error} when nothing is at `path`.
   */
  pack(path: string): Uint8Array {
    const full = absolute(path);
    const node = this.#nodes.get(full);
    if (node === undefined) throw new Error(`no such file ${full}`);
    const base = full === "/" ? "." : posix.basename(full);
    const entries: TarEntry[] = [];
    const visit = (at: string, name: string, current: MemoryNode) => {
      entries.push(tarEntry(name, current));
      if (current.type !== "dir") return;
      for (const child of this.#children(at)) {
        visit(posix.join(at, child), `${name}/${child}`, this.#nodes.get(posix.join(at, child))!);
      }
    };
    visit(full, base, node);
    return packTar(entries);
  }

  /** An independent copy of the tree. */
  clone(): MemoryFiles {
    const copy = new MemoryFiles();
    for (const [path, node] of this.#nodes) copy.#nodes.set(path, { ...node });
    return copy;
  }

  #children(folder: string): string[] {
    const prefix = childPrefix(folder);
    return [...this.#nodes.keys()]
      .filter((key) =>
        key !== folder && key.startsWith(prefix) && !key.slice(prefix.length).includes("/")
      )
      .map((key) => key.slice(prefix.length))
      .sort(compareBytes);
  }

  #set(path: string, node: MemoryNode): void {
    if (path === "/") {
      if (node.type === "dir") this.#nodes.set("/", node);
      return;
    }
    const parent = posix.dirname(path);
    if (this.#nodes.get(parent)?.type !== "dir") this.#set(parent, { type: "dir", mode: 0o755 });
    const existing = this.#nodes.get(path);
    if (existing?.type === "dir" && node.type === "dir") {
      this.#nodes.set(path, node);
      return;
    }
    this.remove(path);
    this.#nodes.set(path, node);
  }
}

function absolute(path: string): string {
  if (!path.startsWith("/")) throw new Error(`memory file paths are absolute: ${path}`);
  return posix.normalize(path).replace(/(.)\/+$/, "$1");
}

function childPrefix(folder: string): string {
  return folder === "/" ? "/" : `${folder}/`;
}

function tarEntry(path: string, node: MemoryNode): TarEntry {
  return node.type === "file"
    ? { path, type: "file", mode: node.mode, data: node.data }
    : node.type === "dir"
    ? { path, type: "dir", mode: node.mode }
    : { path, type: "symlink", target: node.target };
}
