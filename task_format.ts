/**
 * The task format as Verdict reads it: a task folder's manifest (`task.yaml`) with its checks and
 * requirements, a Harbor task's settings (`task.toml`), and the loaders of one task folder.
 *
 * @example A task's checks
 * ```ts
 * import assert from "node:assert/strict";
 * import { type CheckSpec, loadTaskFolder } from "./task_format.ts";
 * const task = await loadTaskFolder("tasks/fix-slugify");
 * const checks: CheckSpec[] = task.manifest.checks;
 * assert(checks.length > 0);
 * ```
 *
 * @module
 */
export type { CheckArgs, CheckKind, CheckSpec, Manifest, Requires } from "./src/task/manifest.ts";
export type { HarborSettings } from "./src/task/task.ts";
export type { Sha256Hex } from "./src/core/hash.ts";
export { loadTask, parseManifest } from "./src/task/load_task.ts";
export { loadTaskFolder, selectTasks } from "./src/task/load_suite.ts";
export { loadHarborTask } from "./src/task/harbor_task.ts";
