/**
 * Every shell program the engine runs inside a container, by name: each says what it does, why it
 * is written the way it is, and which shell runs it (the container's own `sh`, or the shell of the
 * static busybox of `_helper.ts`, which no agent can have replaced). The code that sends them lives
 * in `container.ts`, `_docker_exec.ts`, `_channel_transport.ts` and `_exec_channel.ts`; the texts
 * are here so that a reader sees every script the harness puts into a container in one place.
 *
 * @module
 */
import { shellQuote } from "../core/shell_quote.ts";
import type { LaterInput } from "./sandbox.ts";

/**
 * Wraps every command run by plain `docker exec` (`sh -c EXEC_WRAPPER verdict-exec SCRIPT`), on
 * the container's own `sh`. `docker exec` makes the command a session leader; its first output line
 * is that session's id, so everything it starts (which inherits the session) can be found and
 * killed at the deadline by {@linkcode KILL_SESSION}.
 */
export const EXEC_WRAPPER = 'echo "$$"; exec sh -c "$1"';

/**
 * Kills one command's session (`sh -c KILL_SESSION verdict-kill SID`, as the command's user, on
 * the helper's shell when it is in, since the container's own may be the agent's). It freezes every
 * process of the session first (so none can react to a sibling's death, say by running the next
 * command of a script), over rounds while new ones appear, then kills them all; it succeeds when
 * none is left.
 */
export const KILL_SESSION = `sid=$1
members() {
  for stat in /proc/[0-9]*/stat; do
    read -r line < "$stat" 2>/dev/null || continue
    set -- \${line##*) }
    [ "$4" = "$sid" ] || continue
    case "$1" in Z) continue ;; T|t) [ "$want" = running ] && continue ;; esac
    pid=\${stat#/proc/}; printf '%s ' "\${pid%/stat}"
  done
}
round=0
while [ "$round" -lt 50 ]; do
  want=running; running=$(members)
  [ -z "$running" ] && break
  kill -STOP $running 2>/dev/null
  round=$((round + 1))
done
want=all; all=$(members)
[ -n "$all" ] && kill -KILL $all 2>/dev/null
want=all; [ -z "$(members)" ]`;

/**
 * The seal's copy out (`HELPER sh -c KILL_OTHERS_AND_ARCHIVE verdict-archive COUNT PATH...`, as
 * root, run by the helper's shell with its own applets, never the container's). Every process
 * outside the container's own session (its init and idle process) and this exec's is killed, over
 * rounds (a forking process is caught by the next), then the first COUNT paths (relative to `/`)
 * are archived with what they hold and the rest alone, as two archives one after the other
 * (busybox's `--no-recursion` covers its whole command line). The loops are functions: their
 * `set --` must not clobber the paths.
 */
export const KILL_OTHERS_AND_ARCHIVE =
  `sid_of() { read -r line < "/proc/$1/stat" && set -- \${line##*) } && echo "$4"; }
kill_others() {
keep=$(sid_of 1); self=$(sid_of $$)
round=0
while [ "$round" -lt 20 ]; do
  others=""
  for stat in /proc/[0-9]*/stat; do
    read -r line < "$stat" 2>/dev/null || continue
    set -- \${line##*) }
    [ "$4" = "$keep" ] || [ "$4" = "$self" ] || [ "$1" = Z ] && continue
    pid=\${stat#/proc/}; others="$others \${pid%/stat}"
  done
  [ -z "$others" ] && break
  kill -KILL $others 2>/dev/null
  round=$((round + 1))
done
}
archive() {
  kind=$1; from=$2; to=$3; shift 3; total=$#; i=0
  for path do
    [ "$i" -ge "$from" ] && [ "$i" -lt "$to" ] && set -- "$@" "$path"
    i=$((i + 1))
  done
  shift "$total"
  [ "$#" -eq 0 ] && return 0
  if [ "$kind" = whole ]; then tar -c -f - "$@"; else tar -c --no-recursion -f - "$@"; fi
}
count=$1; shift
kill_others
cd / && archive whole 0 "$count" "$@" && archive alone "$count" "$#" "$@"`;

/**
 * Printed by {@linkcode UNPACK} once the files are unpacked, before the command starts: its absence
 * means unpacking failed, whatever the exit code.
 */
export const UNPACKED_MARK = "verdict: sealed workspace staged";

/**
 * Unpacks the tar on stdin into the workdir, then marks it ({@linkcode UNPACKED_MARK}); the
 * command follows as `exec COMMAND` in the same script, so that staging a workspace and running in
 * it cost one exec. On the container's `sh` as the command's user; in a subshell so that the
 * command keeps the image's umask.
 */
export const UNPACK = `set -e\n(umask 0 && tar -x -f -)\necho '${UNPACKED_MARK}'`;

// The line a tar that comes later follows: stdin closed without it (the tar never came) unpacks
// and runs nothing, whatever the image's `tar` makes of an empty stdin.
const GO = "verdict: unpack";

/**
 * The unpacking script for a tar, and the exec's input: {@linkcode UNPACK} with the tar on stdin;
 * for a tar that comes later, a script that first waits for its line, which is sent before it.
 */
export function unpackFrom(
  tar: Uint8Array | Promise<LaterInput>,
): { unpack: string; input: { stdin: Uint8Array } | { later: Promise<LaterInput> } } {
  if (tar instanceof Uint8Array) return { unpack: UNPACK, input: { stdin: tar } };
  const later = tar.then(({ stdin, timeoutMs }) => {
    const line = new TextEncoder().encode(`${GO}\n`);
    const joined = new Uint8Array(line.length + stdin.length);
    joined.set(line);
    joined.set(stdin, line.length);
    return { stdin: joined, timeoutMs };
  });
  return {
    unpack: `IFS= read -r go && [ "$go" = '${GO}' ] || exit 125\n${UNPACK}`,
    input: { later },
  };
}

// Printed before the report's bytes: without it, there was no report to read.
const REPORT_MARK = "verdict: report follows";

/**
 * Runs `command` with its stdout sent to stderr, then prints the file `report.path` (when it is a
 * regular file and not a link, cut at `maxBytes + 1` bytes) on stdout after
 * {@linkcode REPORT_MARK}, and exits with the command's status. The file is read by the
 * container's `head` once the command has ended; see {@linkcode reportRead}.
 */
export function thenReport(command: string, report: { path: string; maxBytes: number }): string {
  const path = shellQuote(report.path);
  return [
    "set +e",
    `(\n${command}\n) >&2`,
    "verdict_status=$?",
    `if [ -f ${path} ] && [ ! -L ${path} ]; then echo '${REPORT_MARK}'; ` +
    `head -c ${report.maxBytes + 1} ${path}; fi`,
    'exit "$verdict_status"',
  ].join("\n");
}

/**
 * The report {@linkcode thenReport} printed on `stdout`; undefined when there was none or it was
 * larger than `maxBytes`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { reportRead } from "./_shell_programs.ts";
 * assert.equal(reportRead("verdict: report follows\nok\n", 10), "ok\n");
 * assert.equal(reportRead("", 10), undefined);
 * assert.equal(reportRead("verdict: report follows\n0123456789a", 10), undefined);
 * ```
 */
export function reportRead(stdout: string, maxBytes: number): string | undefined {
  if (!stdout.startsWith(`${REPORT_MARK}\n`)) return undefined;
  const read = stdout.slice(REPORT_MARK.length + 1);
  return new TextEncoder().encode(read).length <= maxBytes ? read : undefined;
}

/**
 * A copy out through root's exec channel (on the helper's shell): `tar -c` of `name` inside
 * `parent`, so that entries are named as `docker cp` names them, cut at `maxBytes + 1` bytes so
 * that a copy too large for the channel is seen as such and left to `docker cp`. A failing `tar`
 * says so on stderr, which makes the caller fall back as well.
 */
export function archiveForChannel(parent: string, name: string, maxBytes: number): string {
  return `{ tar -c -f - -C ${shellQuote(parent)} ${shellQuote(name)} || ` +
    `echo 'verdict: tar failed' >&2; } | head -c ${maxBytes + 1}`;
}

/** The first line the exec channel's server prints once it is ready for requests. */
export const CHANNEL_READY = "verdict-channel ready";

/** What a channel command whose workdir is missing prints (`docker exec` fails the same way). */
export const NO_WORKDIR = "verdict-channel: no such workdir";

/**
 * The exec channel's server (`sh -c CHANNEL_SERVER`, under `docker exec --interactive`, on the
 * container's `sh` for the main user and the helper's for root): the protocol is described in
 * `_exec_channel.ts`. It reads one request line at a time (`eval "set -- …"` splits the words the
 * client quoted), stages stdin from base64 into a file, runs the script in a session of its own
 * (`setsid`, so a deadline can kill it with everything it started) with its output in files, and
 * answers `started`, then `done` with sizes, then the kept bytes (whole, or head and tail of
 * `KEEP / 2` each). Its files are cleared every 16 requests. The request `stop` kills, with the
 * shell's own `kill` (no program from the container's disk), every process its user may signal but
 * itself and init: the agent's and, with them, the container's idle process, so that init exits
 * and takes the shell along. It needs only POSIX `sh`, `setsid` and `base64`, and says so when the
 * image lacks them.
 */
export const CHANNEL_SERVER =
  `command -v setsid >/dev/null 2>&1 && command -v base64 >/dev/null 2>&1 || {
  echo "verdict-channel: the image has no setsid or base64"; exit 1; }
dir=/tmp/.verdict-exec-$(id -u)-$$
mkdir -m 700 "$dir" || exit 1
nl='
'
sized() {
  total=0; kept=0
  [ -s "$1" ] || return 0
  total=$(wc -c < "$1"); total=\${total##* }
  kept=$total; [ "$total" -le $((half * 2)) ] || kept=$((half * 2))
}
emit() {
  [ "$2" -gt 0 ] || return 0
  if [ "$2" -lt "$3" ]; then head -c "$half" "$1"; tail -c "$half" "$1"
  else head -c "$2" "$1"; fi
}
echo "${CHANNEL_READY}"
while IFS= read -r request; do
  if [ "$request" = stop ]; then kill -KILL -1; exit 0; fi
  eval "set -- $request"
  seq=$1; half=$(($2 / 2)); input=$3; workdir=$4; script=$5; shift 5
  from=/dev/null
  if [ "$input" != - ]; then
    from="$dir/$seq.in"
    printf '%s' "$input" | base64 -d > "$from" || { echo "refused $seq"; continue; }
  fi
  (
    [ -d "$workdir" ] && cd -- "$workdir" 2>/dev/null || { echo "${NO_WORKDIR}" >&2; exit 126; }
    for pair do export "$pair"; done
    exec setsid sh -c "$script"
  ) < "$from" > "$dir/$seq.out" 2> "$dir/$seq.err" &
  echo "started $seq $!"
  wait "$!"
  code=$?
  sized "$dir/$seq.out"; out_total=$total; out_kept=$kept
  sized "$dir/$seq.err"; err_total=$total; err_kept=$kept
  echo "done $seq $code $out_total $out_kept $err_total $err_kept"
  emit "$dir/$seq.out" "$out_kept" "$out_total"
  emit "$dir/$seq.err" "$err_kept" "$err_total"
  [ $((seq % 16)) -ne 0 ] || rm -f "$dir"/*
done`;
