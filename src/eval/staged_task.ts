/**
 * A task prepared once per run: its workspace read, sealed and packed, so every repeat stages the
 * same bytes without reading the disk again.
 *
 * @module
 */
import { join } from "node:path";
import { type SealedTree, sealEntries } from "../sandbox/snapshot.ts";
import { packTar, type TarEntry } from "../sandbox/tar.ts";
import { readTree } from "../task/file_tree.ts";
import type { Task } from "../task/task.ts";

/** A task with its workspace ready to stage. */
export interface StagedTask {
  /** The task. */
  task: Task;
  /** The workspace, sealed: the initial snapshot every repeat starts from. */
  initial: SealedTree;
  /** The workspace as a tar stream rooted at `/` (the workdir folder and everything in it). */
  tar: Uint8Array;
}

/**
 * Reads, seals and packs a task's workspace.
 *
 * @example
 * ```ts
 * import { loadTask } from "../task/load_task.ts";
 * import { stageTask } from "./staged_task.ts";
 * const staged = await stageTask(await loadTask("tasks/fix-slugify"));
 * console.log(staged.initial.root);
 * ```
 */
export async function stageTask(task: Task): Promise<StagedTask> {
  const tree = await readTree(join(task.dir, "workspace"));
  const prefix = task.manifest.workdir.replace(/^\/+/, "");
  const entries: TarEntry[] = [
    { path: prefix, type: "dir", mode: 0o755 },
    ...tree.map((entry) => ({ ...entry, path: `${prefix}/${entry.path}` })),
  ];
  return { task, initial: sealEntries(tree), tar: packTar(entries, { uid: 1000, gid: 1000 }) };
}
