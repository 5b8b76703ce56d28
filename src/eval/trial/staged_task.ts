/**
 * A task prepared once per run: its workspace read, sealed and packed, and its held-out tests
 * packed for the grader's image, so every repeat stages the same bytes without reading the disk
 * again. Staging is where a task's kind is decided, once: a Harbor task or a Verdict task
 * (`TaskKind`); nothing after it asks again.
 *
 * @module
 */
import { loadPolicy } from "../../policy/policy_file.ts";
import type { Task } from "../../task/task.ts";
import { stageHarborTask } from "./harbor_task.ts";
import type { StagedTask } from "./trial_plan.ts";
import { stageVerdictTask } from "./verdict_task.ts";

/**
 * Reads, seals and packs a task's workspace, and packs its tests. `defaultPolicy` is the policy
 * (`default` or a file, as `--policy` gives it) of a task whose manifest says `policy: default`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { loadTask } from "../../task/load_task.ts";
 * import { stageTask } from "./staged_task.ts";
 * const staged = await stageTask(await loadTask("tasks/fix-slugify"));
 * assert.equal(staged.kind.name, "verdict");
 * ```
 */
export async function stageTask(task: Task, defaultPolicy = "default"): Promise<StagedTask> {
  const policy = await loadPolicy(task.policyPath === "default" ? defaultPolicy : task.policyPath);
  return task.harbor
    ? await stageHarborTask(task, task.harbor, policy)
    : await stageVerdictTask(task, policy);
}
