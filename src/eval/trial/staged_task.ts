/**
 * A task prepared once per run: its workspace read, sealed and packed, and its held-out tests
 * packed for the grader's image, so every repeat stages the same bytes without reading the disk
 * again.
 *
 * @module
 */
import { join } from "node:path";
import { graderImageTar } from "../../grading/grade.ts";
import { harborGraderTar } from "../../grading/harbor_grade.ts";
import { decide, type Policy } from "../../policy/policy.ts";
import { loadPolicy } from "../../policy/policy_file.ts";
import { type SealedTree, sealEntries } from "../../workspace/snapshot.ts";
import type { TarEntry } from "../../engine/tar.ts";
import { packWorkspaceTar } from "../../workspace/workspace_tar.ts";
import { readTree, type TreeEntry } from "../../task/file_tree.ts";
import type { Task } from "../../task/task.ts";

/** A task with its workspace ready to stage. */
export interface StagedTask {
  /** The task. */
  task: Task;
  /** The workspace, sealed: the initial snapshot every repeat starts from. */
  initial: SealedTree;
  /** The workspace as a tar stream rooted at `/` (the workdir folder and everything in it). */
  tar: Uint8Array;
  /**
   * Packs workspace entries (paths relative to the workdir, as `snapshotContents` gives them) for
   * the agent's container, rooted at `/` like `tar`: see {@linkcode packWorkspace}.
   */
  workspaceTar(entries: readonly TarEntry[]): Uint8Array;
  /** The task's `tests/`, held out from the agent. */
  tests: TreeEntry[];
  /** What the grading container's image adds to the task's image (see `graderImageTar`). */
  graderTar: Uint8Array;
}

/**
 * Reads, seals and packs a task's workspace, and packs its tests. `defaultPolicy` is the policy
 * (`default` or a file, as `--policy` gives it) of a task whose manifest says `policy: default`.
 *
 * @example
 * ```ts
 * import { loadTask } from "../../task/load_task.ts";
 * import { stageTask } from "./staged_task.ts";
 * const staged = await stageTask(await loadTask("tasks/fix-slugify"));
 * console.log(staged.initial.root);
 * ```
 */
export async function stageTask(task: Task, defaultPolicy = "default"): Promise<StagedTask> {
  const policy = await loadPolicy(task.policyPath === "default" ? defaultPolicy : task.policyPath);
  const workdir = task.manifest.workdir;
  if (task.harbor) return stageHarborTask(task, policy);
  // Sealed with the modes the agent's container starts with, so a guarded file is unchanged.
  const tree = (await readTree(join(task.dir, "workspace"))).map((entry) =>
    guarded(entry, policy, workdir) ? { ...entry, mode: entry.mode & 0o700 } : entry
  );
  const pack = (workspace: readonly TarEntry[]) => packWorkspace(workspace, policy, workdir);
  const tests = await readTree(join(task.dir, "tests"));
  return {
    task,
    initial: sealEntries(tree),
    tar: pack(tree),
    workspaceTar: pack,
    tests,
    graderTar: graderImageTar(task.manifest.workdir, tests),
  };
}

/**
 * A Harbor task starts from its image as it is: nothing is staged, its end state is what the
 * container changed (so it starts empty), and the grader's image gets `tests/` at `/tests`.
 */
async function stageHarborTask(task: Task, policy: Policy): Promise<StagedTask> {
  const tests = await readTree(join(task.dir, "tests"));
  const pack = (workspace: readonly TarEntry[]) =>
    packWorkspace(workspace, policy, task.manifest.workdir);
  return {
    task,
    initial: sealEntries([]),
    tar: pack([]),
    workspaceTar: pack,
    tests,
    graderTar: harborGraderTar(tests),
  };
}

/**
 * Packs workspace entries (paths relative to the workdir) for the agent's container, rooted at
 * `/`: owned by the agent's user, except each file the policy denies `read_file` on, which is
 * owned by root with no permission for anyone else, so that no command of the agent's user can
 * read it, however it names the file. Grading restores the sealed state as the agent's user and
 * still reads it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { DEFAULT_POLICY } from "../../policy/default_policy.ts";
 * import { packWorkspace } from "./staged_task.ts";
 * const tar = packWorkspace([{ path: "src", type: "dir", mode: 0o755 }], DEFAULT_POLICY, "/workspace");
 * assert(tar.length % 512 === 0);
 * ```
 */
export function packWorkspace(
  entries: readonly TarEntry[],
  policy: Policy,
  workdir: string,
): Uint8Array {
  return packWorkspaceTar(
    entries.map((entry) =>
      guarded(entry, policy, workdir) ? { ...entry, mode: entry.mode & 0o700 } : entry
    ),
    workdir,
    (entry) => guarded(entry, policy, workdir),
  );
}

function guarded<E extends TreeEntry | TarEntry>(
  entry: E,
  policy: Policy,
  workdir: string,
): entry is Extract<E, { type: "file" }> {
  return entry.type === "file" &&
    !decide(policy, "read_file", { path: entry.path }, workdir).allowed;
}
