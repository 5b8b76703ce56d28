/**
 * Sealing: a content hash over every entry under a workdir (bytes, mode, symlink target, empty
 * folders), with the files kept in the blob store. The root is the sha256 of the snapshot's
 * canonical manifest, which is itself stored as a blob, so a root names exactly one end state and
 * can be re-checked from the store alone. A seal covers every entry or fails: an end state past
 * the task's limits, or with a path deeper than `docker cp` copies, is refused as the agent's.
 *
 * @module
 */
import { canonicalJson } from "../core/canonical_json.ts";
import { CorruptionError } from "../core/errors.ts";
import { type Sha256Hex, sha256Hex } from "../core/hash.ts";
import type { BlobStore } from "../store/blob_store.ts";
import { DEFAULT_MAX_WORKSPACE_BYTES, DEFAULT_MAX_WORKSPACE_FILES } from "../task/manifest.ts";
import { compareBytes } from "../core/compare_bytes.ts";
import type { TreeEntry } from "../task/file_tree.ts";
import type { TarEntry, TarEntryHeader } from "../engine/tar.ts";
import { UnsealableWorkspaceError } from "../engine/unsealable.ts";

/** One sealed entry. Paths are relative to the workdir. */
export type SnapshotEntry =
  | { path: string; type: "file"; mode: number; size: number; sha256: Sha256Hex }
  | { path: string; type: "dir"; mode: number }
  | { path: string; type: "symlink"; target: string }
  | { path: string; type: "other"; mode: number; typeflag: string }
  /** A path of the image the agent deleted (only in a whole-container seal). */
  | { path: string; type: "removed" };

/** A sealed tree. */
export interface Snapshot {
  /** sha256 of the canonical manifest: the end-state root. */
  root: Sha256Hex;
  /** Every entry, sorted by path. */
  entries: SnapshotEntry[];
}

/** A snapshot with the bytes of its files at hand, before or after storing. */
export interface SealedTree extends Snapshot {
  /** File bytes by sha256. */
  contents: Map<Sha256Hex, Uint8Array>;
}

const MANIFEST_TAG = "verdict.snapshot/1";

/**
 * Seals entries (from a tar stream or a host folder). `stripPrefix` removes the leading folder
 * `docker cp` puts in front of every path (such as `workspace/`); the folder itself is not an
 * entry.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { sealEntries } from "./snapshot.ts";
 * const sealed = sealEntries([{ path: "a.txt", type: "file", mode: 0o644, data: new Uint8Array([1]) }]);
 * assert(sealed.entries.length === 1 && sealed.root.length === 64);
 * ```
 */
export function sealEntries(
  entries: readonly (TarEntry | TreeEntry)[],
  stripPrefix = "",
): SealedTree {
  const contents = new Map<Sha256Hex, Uint8Array>();
  const sealed: SnapshotEntry[] = [];
  for (const entry of entries) {
    let path = entry.path.replace(/^\.\//, "");
    if (stripPrefix) {
      if (path === stripPrefix || path === ".") continue;
      if (!path.startsWith(`${stripPrefix}/`)) continue;
      path = path.slice(stripPrefix.length + 1);
    }
    if (path === "" || path === ".") continue;
    switch (entry.type) {
      case "file": {
        const hash = sha256Hex(entry.data);
        contents.set(hash, entry.data);
        sealed.push({
          path,
          type: "file",
          mode: entry.mode,
          size: entry.data.length,
          sha256: hash,
        });
        break;
      }
      case "dir":
        sealed.push({ path, type: "dir", mode: entry.mode });
        break;
      case "symlink":
        sealed.push({ path, type: "symlink", target: entry.target });
        break;
      default:
        sealed.push({ path, type: "other", mode: entry.mode, typeflag: entry.typeflag });
    }
  }
  sealed.sort((a, b) => compareBytes(a.path, b.path));
  return { root: sha256Hex(manifestText(sealed)), entries: sealed, contents };
}

/**
 * A sealed tree from entries already sealed (any order) and their files' bytes: its root is the
 * hash of its manifest, as {@linkcode sealEntries} makes it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { sealedTree } from "./snapshot.ts";
 * const tree = sealedTree([{ path: "etc/issue", type: "removed" }], new Map());
 * assert.equal(tree.entries.length, 1);
 * ```
 */
export function sealedTree(
  entries: readonly SnapshotEntry[],
  contents: Map<Sha256Hex, Uint8Array>,
): SealedTree {
  const sorted = [...entries].sort((a, b) => compareBytes(a.path, b.path));
  return { root: sha256Hex(manifestText(sorted)), entries: sorted, contents };
}

/** How much an end state may hold (the task's `limits.max_workspace_*`). */
export interface SealLimits {
  /** Most entries: files, folders and links. Default {@linkcode DEFAULT_MAX_WORKSPACE_FILES}. */
  max_workspace_files?: number;
  /**
   * Most bytes, all files together (a hard link counts as a copy, as it is sealed). Default
   * {@linkcode DEFAULT_MAX_WORKSPACE_BYTES}.
   */
  max_workspace_bytes?: number;
}

/**
 * The longest path, in bytes and as the container names it, that a seal accepts. `docker cp`
 * silently leaves out whatever lies past 4,096 bytes; a name is at most 255, so a tree that deep
 * always shows an entry past 3,840, and refusing from 3,072 on leaves a margin.
 */
export const MAX_SEALED_PATH_BYTES = 3072;

/**
 * The end state broke one of its limits, or holds a path too deep to seal: the agent's failure.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { WorkspaceLimitError } from "./snapshot.ts";
 * assert(new WorkspaceLimitError("too many files").name === "WorkspaceLimitError");
 * ```
 */
export class WorkspaceLimitError extends UnsealableWorkspaceError {
  /** Makes the error. */
  constructor(message: string) {
    super(message);
    this.name = "WorkspaceLimitError";
  }
}

/**
 * What a seal admits from `docker cp`'s stream of `workdir` (entries named `NAME/...` after its
 * last component), before their bytes are read: it throws {@linkcode WorkspaceLimitError} at the
 * first entry past a limit, naming it, so that an end state past its limits costs the harness
 * little time and memory.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { sealGuard } from "./snapshot.ts";
 * const admit = sealGuard("/workspace", { max_workspace_files: 10, max_workspace_bytes: 100 });
 * admit({ path: "workspace/a", type: "file", size: 10 });
 * let refused = false;
 * try {
 *   admit({ path: "workspace/big", type: "file", size: 1000 });
 * } catch {
 *   refused = true;
 * }
 * assert(refused);
 * ```
 */
export function sealGuard(
  workdir: string,
  limits: SealLimits,
): (entry: TarEntryHeader) => void {
  const maxFiles = limits.max_workspace_files ?? DEFAULT_MAX_WORKSPACE_FILES;
  const maxBytes = limits.max_workspace_bytes ?? DEFAULT_MAX_WORKSPACE_BYTES;
  const parent = workdir.slice(0, workdir.lastIndexOf("/"));
  const encoder = new TextEncoder();
  let entries = 0;
  let bytes = 0;
  return (entry) => {
    const path = `${parent}/${entry.path}`;
    const pathBytes = encoder.encode(path).length;
    if (pathBytes > MAX_SEALED_PATH_BYTES) {
      throw new WorkspaceLimitError(
        `the workspace holds a path too deep to seal (${shortened(path)}, ${pathBytes} bytes; ` +
          `at most ${MAX_SEALED_PATH_BYTES})`,
      );
    }
    entries += 1;
    if (entries > maxFiles) {
      throw new WorkspaceLimitError(
        `the workspace holds more than ${maxFiles} files, folders and links ` +
          `(limits.max_workspace_files), so it was not sealed`,
      );
    }
    bytes += entry.size;
    if (bytes > maxBytes) {
      throw new WorkspaceLimitError(
        `the workspace's files add up to more than ${maxBytes} bytes ` +
          `(limits.max_workspace_bytes) at ${shortened(path)} (${entry.size} bytes), ` +
          `so it was not sealed`,
      );
    }
  };
}

// A path of several KB in a one-line reason: its start and its end.
function shortened(path: string): string {
  return path.length <= 200 ? path : `${path.slice(0, 100)}...${path.slice(-100)}`;
}

/**
 * Stores a sealed tree: every file's bytes and the manifest go to the blob store. Returns the
 * root, which is the manifest blob's key.
 */
export function storeSnapshot(blobs: BlobStore, sealed: SealedTree): Sha256Hex {
  for (const data of sealed.contents.values()) blobs.put(data);
  const root = blobs.putText(manifestText(sealed.entries));
  if (root !== sealed.root) throw new Error("snapshot root changed while storing");
  return root;
}

/**
 * Loads a snapshot by root, checking the manifest against its hash.
 * @throws {CorruptionError} when the manifest blob is missing or does not match.
 */
export function loadSnapshot(blobs: BlobStore, root: Sha256Hex): Snapshot {
  const text = blobs.getText(root);
  const manifest = JSON.parse(text) as { version: string; entries: SnapshotEntry[] };
  if (manifest.version !== MANIFEST_TAG) {
    throw new CorruptionError(`snapshot ${root} has an unknown version ${manifest.version}`);
  }
  return { root, entries: manifest.entries };
}

/** The blobs a snapshot root stands for: its manifest and every file. */
export function snapshotBlobs(blobs: BlobStore, root: Sha256Hex): Sha256Hex[] {
  const snapshot = loadSnapshot(blobs, root);
  return [
    root,
    ...snapshot.entries.flatMap((entry) => (entry.type === "file" ? [entry.sha256] : [])),
  ];
}

/** Reads a file's bytes from a snapshot (checked against its hash), or undefined. */
export function readSnapshotFile(
  blobs: BlobStore,
  snapshot: Snapshot,
  path: string,
): Uint8Array | undefined {
  const entry = snapshot.entries.find((candidate) => candidate.path === path);
  return entry?.type === "file" ? blobs.get(entry.sha256) : undefined;
}

/** One difference between two snapshots. */
export interface SnapshotChange {
  /** The path. */
  path: string;
  /** What happened to it. */
  change: "added" | "removed" | "modified";
  /** For `modified`: which aspects differ. */
  aspects?: ("content" | "mode" | "type" | "target")[];
}

/**
 * The exact difference between two snapshots, sorted by path.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { diffSnapshots, sealEntries } from "./snapshot.ts";
 * const before = sealEntries([{ path: "a", type: "file", mode: 0o644, data: new Uint8Array([1]) }]);
 * const after = sealEntries([{ path: "a", type: "file", mode: 0o755, data: new Uint8Array([1]) }]);
 * assert(diffSnapshots(before, after)[0].aspects?.[0] === "mode");
 * ```
 */
export function diffSnapshots(before: Snapshot, after: Snapshot): SnapshotChange[] {
  const old = new Map(before.entries.map((entry) => [entry.path, entry]));
  const changes: SnapshotChange[] = [];
  for (const entry of after.entries) {
    const previous = old.get(entry.path);
    old.delete(entry.path);
    if (entry.type === "removed") {
      if (previous?.type !== "removed") changes.push({ path: entry.path, change: "removed" });
      continue;
    }
    if (previous === undefined) {
      changes.push({ path: entry.path, change: "added" });
      continue;
    }
    const aspects = differences(previous, entry);
    if (aspects.length > 0) changes.push({ path: entry.path, change: "modified", aspects });
  }
  for (const path of old.keys()) changes.push({ path, change: "removed" });
  return changes.sort((a, b) => compareBytes(a.path, b.path));
}

function differences(
  a: SnapshotEntry,
  b: SnapshotEntry,
): ("content" | "mode" | "type" | "target")[] {
  if (a.type !== b.type) return ["type"];
  const aspects: ("content" | "mode" | "type" | "target")[] = [];
  if (a.type === "file" && b.type === "file" && a.sha256 !== b.sha256) aspects.push("content");
  if (a.type === "symlink" && b.type === "symlink" && a.target !== b.target) aspects.push("target");
  if ("mode" in a && "mode" in b && a.mode !== b.mode) aspects.push("mode");
  return aspects;
}

function manifestText(entries: readonly SnapshotEntry[]): string {
  return canonicalJson({ version: MANIFEST_TAG, entries });
}

/**
 * A snapshot's entries with their files' bytes, paths relative to the workdir, ready for
 * `packWorkspaceTar`. File bytes come from the blob store, checked; `other` entries (devices,
 * fifos) are left out.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openStore } from "../store/store.ts";
 * import { sealEntries, snapshotContents, storeSnapshot } from "./snapshot.ts";
 * const store = openStore(":memory:");
 * const sealed = sealEntries([{ path: "a", type: "file", mode: 0o644, data: new Uint8Array([1]) }]);
 * storeSnapshot(store.blobs, sealed);
 * assert(snapshotContents(store.blobs, sealed)[0].path === "a");
 * store.close();
 * ```
 */
export function snapshotContents(blobs: BlobStore, snapshot: Snapshot): TarEntry[] {
  const entries: TarEntry[] = [];
  const read = new Map<Sha256Hex, Uint8Array>(); // each distinct content read and checked once
  for (const entry of snapshot.entries) {
    const { path } = entry;
    if (entry.type === "file") {
      let data = read.get(entry.sha256);
      if (data === undefined) read.set(entry.sha256, data = blobs.get(entry.sha256));
      entries.push({ path, type: "file", mode: entry.mode, data });
    } else if (entry.type === "dir") entries.push({ path, type: "dir", mode: entry.mode });
    else if (entry.type === "symlink") {
      entries.push({ path, type: "symlink", target: entry.target });
    }
  }
  return entries;
}

/**
 * For `verifyRun`: the blobs behind a snapshot root (its manifest and every file in it), so
 * verification re-hashes each of them; just the root when its manifest cannot be read.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openStore } from "../store/store.ts";
 * import { sealEntries, snapshotReferences, storeSnapshot } from "./snapshot.ts";
 * const store = openStore(":memory:");
 * const root = storeSnapshot(store.blobs, sealEntries([]));
 * assert.deepEqual(snapshotReferences(store.blobs, root), [root]);
 * store.close();
 * ```
 */
export function snapshotReferences(blobs: BlobStore, root: Sha256Hex): Sha256Hex[] {
  try {
    return snapshotBlobs(blobs, root);
  } catch {
    return [root]; // the manifest itself is bad; verification reports it
  }
}
