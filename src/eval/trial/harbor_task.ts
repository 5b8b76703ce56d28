/**
 * A Harbor task: it starts from its own image as it is (nothing staged), its containers run as
 * root with the engine's default capabilities as Harbor runs them, its end state is what the
 * container changed against the image, and its verifier's reward decides the verdict.
 *
 * @module
 */
import { join } from "node:path";
import { InfrastructureError } from "../../core/errors.ts";
import { shellQuote } from "../../core/shell_quote.ts";
import { DEFAULT_LIMITS } from "../../engine/container.ts";
import type { ContainerSpec, SandboxContainer } from "../../engine/sandbox.ts";
import { packOwnedTar, type TarEntry } from "../../engine/tar.ts";
import { gradeHarbor, harborGraderTar } from "../../grading/harbor_grade.ts";
import type { Policy } from "../../policy/policy.ts";
import { readTree } from "../../task/file_tree.ts";
import type { HarborSettings, Task } from "../../task/task.ts";
import { sealContainer } from "../../workspace/container_seal.ts";
import { sealEntries, type Snapshot, snapshotContents } from "../../workspace/snapshot.ts";
import { packWorkspace } from "./workspace_pack.ts";
import type { StagedTask, TaskKind } from "./trial_plan.ts";

/**
 * The kind of a Harbor task with these settings.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { harborTaskKind } from "./harbor_task.ts";
 * const kind = harborTaskKind({ environment: { cpus: 2 } } as never);
 * assert.equal(kind.containerSpec.user, "0:0");
 * assert.equal(kind.containerSpec.limits?.cpus, 2);
 * ```
 */
export function harborTaskKind(harbor: HarborSettings): TaskKind {
  return {
    name: "harbor",
    containerSpec: harborContainer(harbor),
    sealRoot: () => "/",
    agentImage: ({ task }) => Promise.resolve(task.manifest.image),
    graderImage: ({ task, graderTar }, images, signal) =>
      images.imageFor(task.manifest.image, graderTar, { signal }),
    checkpoint: async (_staged, container, admit) =>
      (await sealContainer(container, admit, { final: false })).sealed,
    seal: (_staged, container, admit) => sealContainer(container, admit),
    restore: (_staged, container, blobs, snapshot) =>
      applyContainerSeal(container, snapshotContents(blobs, snapshot), snapshot),
    grade: async ({ staged, blobs, final, grader, deps }) =>
      gradeHarbor({
        harbor,
        workdir: staged.task.manifest.workdir,
        blobs,
        final: await final,
        tests: staged.tests,
        grader,
        passReward: deps.passReward ?? 1,
        signal: deps.signal,
      }),
  };
}

/**
 * A Harbor task starts from its image as it is: nothing is staged, its end state is what the
 * container changed (so it starts empty), and the grader's image gets `tests/` at `/tests`.
 */
export async function stageHarborTask(
  task: Task,
  harbor: HarborSettings,
  policy: Policy,
): Promise<StagedTask> {
  const tests = await readTree(join(task.dir, "tests"));
  const pack = (workspace: readonly TarEntry[]) =>
    packWorkspace(workspace, policy, task.manifest.workdir);
  return {
    task,
    kind: harborTaskKind(harbor),
    initial: sealEntries([]),
    tar: pack([]),
    workspaceTar: pack,
    tests,
    graderTar: harborGraderTar(tests),
  };
}

/**
 * A Harbor task's containers run as root with the engine's default capabilities, as the tasks
 * were written for (Harbor runs them so), within the task's CPU and memory.
 */
function harborContainer(harbor: HarborSettings): Partial<ContainerSpec> {
  const { cpus, memoryMb } = harbor.environment;
  return {
    user: "0:0",
    capabilities: "engine-default",
    limits: {
      ...DEFAULT_LIMITS,
      ...(cpus ? { cpus } : {}),
      ...(memoryMb ? { memoryMb } : {}),
    },
  };
}

/**
 * A Harbor task's checkpoint (a whole-container seal) applied to a new container of its image: the
 * deleted paths deleted, the rest copied in, root's.
 */
async function applyContainerSeal(
  container: SandboxContainer,
  contents: TarEntry[],
  snapshot: Snapshot,
): Promise<void> {
  const removed = snapshot.entries.filter((entry) => entry.type === "removed");
  if (removed.length > 0) {
    const deleted = await container.exec(
      `rm -rf -- ${removed.map((entry) => shellQuote(`/${entry.path}`)).join(" ")}`,
      { user: "0:0", timeoutMs: 60_000 },
    );
    if (deleted.exitCode !== 0) {
      throw new InfrastructureError(`could not restore a checkpoint: ${deleted.stderr.trim()}`);
    }
  }
  if (contents.length > 0) {
    await container.copyIn(packOwnedTar([{ entries: contents, options: { uid: 0, gid: 0 } }]), "/");
  }
}
