/**
 * Keeping file tools inside the workdir: paths are checked lexically on the host (no `..` out, no
 * absolute path elsewhere), then resolved inside the container, where a symlink pointing out is
 * caught before anything is read or written.
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
 * import { confinePath } from "./confine.ts";
 * console.assert(confinePath("/workspace", "/workspace/src/a.py") === "src/a.py");
 * console.assert(typeof confinePath("/workspace", "../etc/passwd") === "object");
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

/**
 * A shell prelude defining `confine REL`: it sets `$target` to `$VERDICT_WORKDIR/REL` after
 * resolving the longest existing prefix inside the container and refusing it if a symlink leads
 * out of the workdir. Components that do not exist yet cannot be symlinks.
 */
export const CONFINE_PRELUDE = `confine() {
  target="$VERDICT_WORKDIR/$1"
  probe=$target
  while [ ! -e "$probe" ] && [ ! -L "$probe" ]; do probe=$(dirname "$probe"); done
  real=$(readlink -f "$probe" 2>/dev/null) || { echo "$1 cannot be resolved" >&2; return 3; }
  case "$real/" in
    "$VERDICT_WORKDIR"/*) return 0 ;;
    *) echo "$1 leads out of the workdir through a symlink (to $real); use a path inside it" >&2; return 3 ;;
  esac
}
`;
