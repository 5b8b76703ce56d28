/**
 * Paths the model names, checked lexically against the workdir: relative to it, or absolute inside
 * it; never out through `..`. The file tools and the permission policy both see a path this way, so
 * a rule about `secrets/**` also covers `/workspace/secrets/key`.
 *
 * @module
 */
import { posix } from "node:path";

/** A path that passed the lexical check, relative to the workdir (`.` for the workdir itself). */
export type WorkdirPath = string;

/**
 * Checks a path the model gave: relative to the workdir, or absolute inside it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { confinePath } from "./workdir_path.ts";
 * assert(confinePath("/workspace", "/workspace/src/a.py") === "src/a.py");
 * assert(typeof confinePath("/workspace", "../etc/passwd") === "object");
 * ```
 * @returns the relative path, or `{ error }` saying why it is refused.
 */
export function confinePath(workdir: string, path: string): WorkdirPath | { error: string } {
  if (path.includes("\0")) return { error: "the path contains a NUL byte" };
  const root = posix.normalize(workdir).replace(/\/+$/, "");
  let relative: string;
  if (path.startsWith("/")) {
    const absolute = posix.normalize(path).replace(/\/+$/, "") || "/";
    if (absolute !== root && !absolute.startsWith(`${root}/`)) {
      return { error: `${path} is outside the workdir ${root}; use a path inside it` };
    }
    relative = absolute === root ? "." : absolute.slice(root.length + 1);
  } else {
    relative = posix.normalize(path === "" ? "." : path).replace(/\/+$/, "") || ".";
  }
  if (relative === ".." || relative.startsWith("../")) {
    return { error: `${path} leaves the workdir ${root} through '..'; use a path inside it` };
  }
  return relative;
}
