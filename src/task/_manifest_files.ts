// A task folder holds one manifest: `task.yaml` (a Verdict task) or `task.toml` (a Harbor task);
// and what is at a path in it.
import { join } from "node:path";
import { InputError } from "../core/errors.ts";

/**
 * Throws when `dir` holds both `task.yaml` and `task.toml`: which one describes the task would
 * otherwise be a guess.
 *
 * @throws {InputError} naming both files and the fix (exit 2).
 */
export async function refuseBothManifests(dir: string): Promise<void> {
  if (!(await isFile(join(dir, "task.yaml"))) || !(await isFile(join(dir, "task.toml")))) return;
  throw new InputError({
    file: dir,
    field: "",
    problem: "holds both task.yaml (a Verdict task) and task.toml (a Harbor task)",
    fix: "keep one: remove task.toml to load it as a Verdict task, or task.yaml to load it as " +
      "a Harbor task",
  });
}

/** Whether `path` is a file (following symlinks). */
export async function isFile(path: string): Promise<boolean> {
  return (await statOrNull(path))?.isFile ?? false;
}

/** `path`'s information (following symlinks), or null when nothing is there. */
export async function statOrNull(path: string): Promise<Deno.FileInfo | null> {
  try {
    return await Deno.stat(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory) {
      return null;
    }
    throw error;
  }
}
