/**
 * A Verdict task: its workspace is staged into the task's image (the agent's image holds it
 * already), the agent works in the workdir, the end state is the workdir copied out once the
 * container is stopped, and grading runs the task's checks and success script in fresh graders.
 *
 * @module
 */
import { join, posix } from "node:path";
import { grade, graderImageTar } from "../../grading/grade.ts";
import type { Policy } from "../../policy/policy.ts";
import { readTree } from "../../task/file_tree.ts";
import type { Task } from "../../task/task.ts";
import { diffSnapshots, sealEntries, snapshotContents } from "../../workspace/snapshot.ts";
import type { StagedTask, TaskKind } from "./trial_plan.ts";
import { guardedMode, packWorkspace } from "./workspace_pack.ts";

/**
 * The kind of every task that is not a Harbor task.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { VERDICT_TASK } from "./verdict_task.ts";
 * assert.equal(VERDICT_TASK.sealRoot({ manifest: { workdir: "/workspace" } } as never), "/workspace");
 * ```
 */
export const VERDICT_TASK: TaskKind = {
  name: "verdict",
  containerSpec: {},
  sealRoot: (task) => task.manifest.workdir,
  agentImage: ({ task, tar }, images, signal) =>
    images.imageFor(task.manifest.image, tar, { emptyFolder: task.manifest.workdir, signal }),
  graderImage: ({ task, graderTar }, images, signal) =>
    images.imageFor(task.manifest.image, graderTar, { emptyFolder: task.manifest.workdir, signal }),
  async checkpoint({ task }, container, admit) {
    const { workdir } = task.manifest;
    return sealEntries(await container.copyOut(workdir, admit), posix.basename(workdir));
  },
  async seal(staged, container, admit) {
    await container.stop();
    const sealed = await VERDICT_TASK.checkpoint(staged, container, admit);
    return { sealed, changes: diffSnapshots(staged.initial, sealed) };
  },
  async restore(staged, container, blobs, snapshot) {
    await container.copyIn(staged.workspaceTar(snapshotContents(blobs, snapshot)), "/");
  },
  grade: ({ staged, blobs, final, outcome, grader, canaryGrader, deps, installed }) =>
    grade({
      task: staged.task,
      blobs,
      initial: staged.initial,
      final,
      counters: outcome.counters,
      tests: staged.tests,
      grader,
      canaryGrader,
      waiveModelOnly: deps.waiveModelOnly,
      waiveLoopOnly: installed,
      signal: deps.signal,
    }),
};

/**
 * Reads, seals and packs a Verdict task's workspace under its policy, and packs its tests for
 * the grader's image.
 */
export async function stageVerdictTask(task: Task, policy: Policy): Promise<StagedTask> {
  const { workdir } = task.manifest;
  // Sealed with the modes the agent's container starts with, so a guarded file is unchanged.
  const tree = (await readTree(join(task.dir, "workspace"))).map((entry) =>
    guardedMode(entry, policy, workdir)
  );
  const pack = (workspace: Parameters<StagedTask["workspaceTar"]>[0]) =>
    packWorkspace(workspace, policy, workdir);
  const tests = await readTree(join(task.dir, "tests"));
  return {
    task,
    kind: VERDICT_TASK,
    initial: sealEntries(tree),
    tar: pack(tree),
    workspaceTar: pack,
    tests,
    graderTar: graderImageTar(workdir, tests),
  };
}
