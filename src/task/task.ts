/**
 * A loaded task: its validated manifest and where its parts live on the host.
 *
 * @module
 */
import type { Manifest } from "./manifest.ts";

/** A task folder, loaded and validated. */
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
