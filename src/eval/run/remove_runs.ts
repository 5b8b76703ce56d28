/**
 * Removing runs from a state folder, and the blobs no run refers to any more. A run another
 * process holds (its lock) is never touched. A removal killed at any point leaves either the run
 * whole or a state that the next `clean` finishes: the run folder is first moved aside
 * (`runs/.removing-ID`), then the run's rows go in one transaction, then the folder.
 *
 * @module
 */
import { join } from "node:path";
import { UsageError } from "../../core/errors.ts";
import { collectBlobs, type CollectedBlobs } from "../../store/blob_garbage.ts";
import { deleteRun } from "../../store/delete_run.ts";
import type { Store } from "../../store/store.ts";
import { eventBlobReferences } from "./event_references.ts";
import { type RunLock, tryLockRun } from "./run_lock.ts";

const REMOVING = ".removing-";

/** Blobs collected, or the run that kept them (a live run may be storing blobs right now). */
export type BlobCollection = CollectedBlobs | { keptFor: string };

/**
 * Removes runs `ids` (exact ids) of the state folder whose runs live in `runsDir`: their records,
 * their run folders, then the blobs nothing refers to any more.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openStore } from "../../store/store.ts";
 * import { removeRuns } from "./remove_runs.ts";
 * const runsDir = await Deno.makeTempDir();
 * const store = openStore(":memory:");
 * store.runs.create({ id: "r1", config: {}, createdAt: 0 });
 * await Deno.mkdir(`${runsDir}/r1`);
 * const { blobs } = await removeRuns(store, runsDir, ["r1"]);
 * assert.deepEqual(blobs, { blobs: 0, bytes: 0 });
 * assert.equal(store.runs.get("r1"), undefined);
 * await Deno.remove(runsDir, { recursive: true });
 * ```
 * @throws {UsageError} naming the run when another process holds one of them (nothing removed).
 */
export async function removeRuns(
  store: Store,
  runsDir: string,
  ids: readonly string[],
): Promise<{ blobs: BlobCollection }> {
  const locks = lockAll(runsDir, ids, (id) => {
    throw new UsageError(
      `run ${id} is in progress: another verdict holds it. Fix: wait for it to end (or stop it), ` +
        `then clean again`,
    );
  });
  try {
    for (const id of ids) await moveAside(runsDir, id);
    store.transaction(() => {
      for (const id of ids) deleteRun(store, id);
    });
  } finally {
    for (const lock of locks) lock.release();
  }
  await removeMovedAside(runsDir);
  return { blobs: await collectGarbage(store, runsDir) };
}

/**
 * Deletes the blobs no run refers to, unless a run of this folder is live (then the first such run
 * is named, and nothing is deleted); also finishes removals a killed `clean` left. It holds the
 * database's write lock while it reads every event: an eval that starts meanwhile waits for it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openStore } from "../../store/store.ts";
 * import { collectGarbage } from "./remove_runs.ts";
 * const runsDir = await Deno.makeTempDir();
 * const store = openStore(":memory:");
 * store.blobs.putText("left behind");
 * assert.deepEqual(await collectGarbage(store, runsDir), { blobs: 1, bytes: 11 });
 * await Deno.remove(runsDir, { recursive: true });
 * ```
 */
export async function collectGarbage(store: Store, runsDir: string): Promise<BlobCollection> {
  await removeMovedAside(runsDir);
  // Inside the write transaction: an eval that starts meanwhile cannot store a blob until it ends,
  // and one that had started holds its run folder's lock.
  return store.transaction(() => {
    let live: string | undefined;
    const locks = lockAll(runsDir, runFolders(runsDir), (id) => {
      live = id;
    });
    try {
      if (live !== undefined) return { keptFor: live };
      return collectBlobs(store, eventBlobReferences(store.blobs));
    } finally {
      for (const lock of locks) lock.release();
    }
  });
}

// Every lock or none: when one is held elsewhere, `held` is told (it may throw) and the locks
// taken so far are given back.
function lockAll(runsDir: string, ids: readonly string[], held: (id: string) => void): RunLock[] {
  const locks: RunLock[] = [];
  try {
    for (const id of ids) {
      const runDir = join(runsDir, id);
      if (!isFolder(runDir)) continue;
      const lock = tryLockRun(runDir);
      if (lock !== undefined) {
        locks.push(lock);
        continue;
      }
      held(id);
      for (const taken of locks.splice(0)) taken.release();
      return [];
    }
    return locks;
  } catch (error) {
    for (const taken of locks) taken.release();
    throw error;
  }
}

async function moveAside(runsDir: string, id: string): Promise<void> {
  const runDir = join(runsDir, id);
  if (isFolder(runDir)) await Deno.rename(runDir, join(runsDir, REMOVING + id));
}

async function removeMovedAside(runsDir: string): Promise<void> {
  for (const name of folderNames(runsDir)) {
    if (name.startsWith(REMOVING)) await Deno.remove(join(runsDir, name), { recursive: true });
  }
}

function runFolders(runsDir: string): string[] {
  return folderNames(runsDir).filter((name) => !name.startsWith("."));
}

function folderNames(runsDir: string): string[] {
  const names: string[] = [];
  try {
    for (const entry of Deno.readDirSync(runsDir)) if (entry.isDirectory) names.push(entry.name);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return names.sort();
}

function isFolder(path: string): boolean {
  try {
    return Deno.statSync(path).isDirectory;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}
