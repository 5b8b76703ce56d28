/**
 * Where a linted file sits in the project: its path relative to the project root.
 *
 * @module
 */
import { dirname, join, normalize, relative } from "node:path";

const PROJECT_ROOT = normalize(join(dirname(new URL(import.meta.url).pathname), ".."));

/** The path of a linted file relative to the project root, with `/` separators. */
export function projectPath(filename: string): string {
  const path = filename.startsWith("/") ? relative(PROJECT_ROOT, filename) : normalize(filename);
  return path.replaceAll("\\", "/");
}

/** Whether a project path is under `src/`. */
export function inSrc(path: string): boolean {
  return path.startsWith("src/");
}
