// Where a task file leads when a symlink takes it out of the task folder, shared by the loaders of
// Verdict tasks (`task.yaml`) and Harbor tasks (`task.toml`).
import { join } from "node:path";
import type { InputProblem } from "../core/errors.ts";
import { leadsInside, linkTarget } from "../core/link_target.ts";

/**
 * Where a task file leads when a symlink takes it out of `within` (a folder of the task, the task
 * folder itself when empty), as a problem; undefined when it stays inside.
 */
export function leadOut(
  dir: string,
  path: string,
  within: string,
): Pick<InputProblem, "problem" | "fix"> | undefined {
  const folder = join(dir, within);
  let target: string;
  try {
    if (leadsInside(join(dir, path), folder)) return undefined;
    target = linkTarget(join(dir, path));
  } catch (error) {
    if (!(error instanceof Deno.errors.FilesystemLoop)) throw error;
    return { problem: "is a loop of symlinks", fix: "replace the links with the file itself" };
  }
  const place = within === "" ? "the task folder" : `${within}/`;
  return {
    problem: `is a symlink that leads to ${target}, outside ${place}`,
    fix: within === ""
      ? "copy the file into the task folder instead of linking to it"
      : `copy it into ${within}/ instead of linking to it (only ${within}/ is staged for grading)`,
  };
}
