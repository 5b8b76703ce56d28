/**
 * Keeping file tools inside the workdir: paths are checked lexically on the host (no `..` out, no
 * absolute path elsewhere), then resolved inside the container, where a symlink pointing out is
 * caught before anything is read or written.
 *
 * @module
 */
export { confinePath, type WorkdirPath } from "../core/workdir_path.ts";

/**
 * A shell prelude defining `confine REL`: it sets `$target` to `$VERDICT_WORKDIR/REL` after
 * resolving the longest existing prefix inside the container (into `$real`) and refusing it if a
 * symlink leads out of the workdir. Components that do not exist yet cannot be symlinks.
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
