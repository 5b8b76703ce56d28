/**
 * A task prepared once per run: its workspace read, sealed and packed, and its held-out tests
 * packed for the grader's image, so every repeat stages the same bytes without reading the disk
 * again.
 *
 * @module
 */
import { join } from "node:path";
import { graderImageTar } from "../grading/grade.ts";
import { type SealedTree, sealEntries } from "../sandbox/snapshot.ts";
import { packTar, type TarEntry } from "../sandbox/tar.ts";
import { readTree, type TreeEntry } from "../task/file_tree.ts";
import type { Task } from "../task/task.ts";

/** A task with its workspace ready to stage. */
export interface StagedTask {
  /** The task. */
  task: Task;
  /** The workspace, sealed: the initial snapshot every repeat starts from. */
  initial: SealedTree;
  /** The workspace as a tar stream rooted at `/` (the workdir folder and everything in it). */
  tar: Uint8Array;
  /** The task's `tests/`, held out from the agent. */
  tests: TreeEntry[];
  /** What the grading container's image adds to the task's image (see `graderImageTar`). */
  graderTar: Uint8Array;
}

/**
 * Reads, seals and packs a task's workspace, and packs its tests.
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
  const tests = await readTree(join(task.dir, "tests"));
  return {
    task,
    initial: sealEntries(tree),
    tar: packTar(entries, { uid: 1000, gid: 1000 }),
    tests,
    graderTar: graderImageTar(task.manifest.workdir, tests),
  };
}
