/**
 * A loaded task: its validated manifest and where its parts live on the host.
 *
 * @module
 */
import type { Manifest } from "./manifest.ts";

/**
 * A task folder, loaded and validated.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { loadTaskFolder } from "./load_suite.ts";
 * import type { Task } from "./task.ts";
 * const task: Task = await loadTaskFolder("tasks/fix-slugify");
 * assert.equal(task.manifest.category, "bugfix");
 * assert(task.hasSolution && task.harbor === undefined);
 * ```
 */
export interface Task {
  /** The task id (from the manifest). */
  id: string;
  /** The task folder. */
  dir: string;
  /** The validated manifest, defaults filled in. */
  manifest: Manifest;
  /** The text of `instruction.md`. */
  instruction: string;
  /** The policy file's path, or `default`. */
  policyPath: string | "default";
  /** Whether `solution/` exists. */
  hasSolution: boolean;
  /**
   * For a Harbor (Terminal-Bench) task folder (`task.toml`): its settings. Its `manifest` is
   * synthesised from them: `image` names the environment image (built from `environment/` or
   * `[environment].docker_image`), `workdir` is the image's `WORKDIR` once the run has resolved
   * it, `limits.timeout_s` is `[agent].timeout_sec`, `success` runs `tests/test.sh` under
   * `[verifier].timeout_sec`.
   */
  harbor?: HarborSettings;
}

/** What a Harbor task's `task.toml` sets that Verdict honours. */
export interface HarborSettings {
  /** The schema version it declares (`version` or `schema_version`). */
  schemaVersion: string;
  /** Where its environment image comes from. */
  environment: {
    /** `environment/Dockerfile` (built with `environment/` as its context), or null. */
    dockerfile: string | null;
    /** `[environment].docker_image`: a local image used as is, or null. */
    dockerImage: string | null;
    /** `[environment].build_timeout_sec`. */
    buildTimeoutSec: number;
    /** `[environment].cpus`, when set. */
    cpus?: number;
    /** `[environment].memory_mb`, when set. */
    memoryMb?: number;
    /** `[environment].storage_mb`, when set (recorded; Docker cannot cap it here). */
    storageMb?: number;
  };
  /** `[verifier]`. */
  verifier: {
    /** `timeout_sec`. */
    timeoutSec: number;
    /** `env`: added to the verifier's environment. */
    env: Record<string, string>;
    /** `user`: who runs `tests/test.sh` (default `root`). */
    user: string;
    /**
     * `allowed_hijack_paths` (Verdict's own key): grader-hijack paths the agent may change, each
     * with everything under it (see `grading/hijack_paths.ts`); absent when none.
     */
    allowedHijackPaths?: readonly string[];
  };
  /** `[agent].timeout_sec`. */
  agentTimeoutSec: number;
  /** Whether `solution/solve.sh` exists. */
  solveScript: boolean;
  /** `[metadata]` (and 1.1's `[task]`), free-form. */
  metadata: Record<string, unknown>;
}

/**
 * The ids of `tasks` by the image each runs in, images in first-seen order.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type Task, tasksByImage } from "./task.ts";
 * const task = (id: string, image: string) => ({ id, manifest: { image } }) as Task;
 * assert.deepEqual(
 *   [...tasksByImage([task("a", "py"), task("b", "bb"), task("c", "py")])],
 *   [["py", ["a", "c"]], ["bb", ["b"]]],
 * );
 * ```
 */
export function tasksByImage(tasks: readonly Task[]): Map<string, string[]> {
  const byImage = new Map<string, string[]>();
  for (const task of tasks) {
    byImage.set(task.manifest.image, [...(byImage.get(task.manifest.image) ?? []), task.id]);
  }
  return byImage;
}
