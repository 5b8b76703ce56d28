/**
 * Staging the agent's end state in an untouched Harbor grader (step 2 of `harbor_grade.ts`), with
 * the image's own tools or the engine's static helper: the agent's deletions, the image's own
 * copies of the commands it shadowed, then the sealed changes unpacked at `/` and a grader-owned
 * `.pth` for the image's `WORKDIR`.
 *
 * @module
 */
import { posix } from "node:path";
import { InfrastructureError } from "../core/errors.ts";
import { shellQuote } from "../core/shell_quote.ts";
import { firstLine } from "../engine/docker.ts";
import { packOwnedTar } from "../engine/tar.ts";
import { snapshotContents, type SnapshotEntry } from "../workspace/snapshot.ts";
import {
  HARBOR_VERIFIER_LOGS,
  type HarborGradeInput,
  heldBack,
  TRUSTED_BIN,
  verifierUser,
  WORKDIR_PTH,
} from "./harbor_grader.ts";

// Time for staging the sealed changes (deletions, the image's own commands, the changes unpacked),
// on top of the verifier's own, as for a Verdict task's grader (about 6 s for 51 MB measured there).
const STAGING_BASE_MS = 10_000;
const STAGING_BYTES_PER_MS = 10_000;

// Run as root in the untouched grader by the engine's static helper (its applets, never the
// image's tools: the agent's deletions are applied first, and may take `mkdir` or `tar`). Stdin
// holds lines, then the tar: `D path` for each path the agent deleted, `F path` for each sealed
// file or link (a folder of the image in its place goes first), `T path` for each sealed folder
// (a file of the image in its place goes first), `- name` for each executable the agent added or
// changed (the image's own, found on PATH, is copied first on the verifier's PATH), up to the
// line END_OF_LIST (the shell's `read` takes no byte past a line). The image's Python names its
// first site folder; /logs/verifier becomes the verifier's. Then the sealed changes are unpacked
// at /, owners and modes as sealed, and a grader-owned .pth appends the WORKDIR to Python's path
// (after the standard library and site-packages: PYTHONSAFEPATH keeps it from coming first).
const STAGED_MARK = "verdict: sealed end state staged";
const END_OF_LIST = "verdict: end of the list";
const STAGE = `set -e
mkdir -p ${TRUSTED_BIN}
while IFS= read -r line; do
  [ "$line" != ${shellQuote(END_OF_LIST)} ] || break
  path=\${line#? }
  case "$line" in
    "D "*) rm -rf -- "$path" ;;
    "F "*) if [ -d "$path" ] && [ ! -L "$path" ]; then rm -rf -- "$path"; fi ;;
    "T "*) if [ -e "$path" ] || [ -L "$path" ]; then [ -d "$path" ] || rm -f -- "$path"; fi ;;
    "- "*)
      for folder in $(printf '%s' "$PATH" | tr ':' ' '); do
        if [ -f "$folder/$path" ] && [ -x "$folder/$path" ]; then
          cp -L -p -- "$folder/$path" ${shellQuote(TRUSTED_BIN)}/; break
        fi
      done ;;
  esac
done
site=$(python3 -c 'import site; print(site.getsitepackages()[0])' </dev/null 2>/dev/null || true)
case "$site" in /*) mkdir -p -- "$site" ;; *) site="" ;; esac
[ "$VERIFIER_USER" = 0:0 ] || chown -- "$VERIFIER_USER" ${HARBOR_VERIFIER_LOGS}
(umask 0 && tar -x -p -f - -C /)
[ -z "$site" ] || printf '%s\\n' "$WORKDIR" > "$site/${WORKDIR_PTH}"
echo '${STAGED_MARK}'`;

/**
 * Stages the sealed changes (all but bytecode caches) in the untouched grader, as root, by the
 * engine's helper when the engine has one (else by the image's own shell and tools).
 *
 * @throws {InfrastructureError} when staging fails or runs past its deadline.
 * @example
 * ```ts ignore
 * await stageSealedChanges(input, entries);
 * ```
 */
export async function stageSealedChanges(
  input: HarborGradeInput,
  entries: readonly SnapshotEntry[],
): Promise<void> {
  const helper = await input.grader.installHelper();
  const tar = packOwnedTar([{
    entries: snapshotContents(input.blobs, { ...input.final, entries: staged(entries) }),
    options: { uid: 0, gid: 0 },
  }]);
  const list = new TextEncoder().encode(`${stagingList(entries).join("\n")}\n${END_OF_LIST}\n`);
  const stdin = new Uint8Array(list.length + tar.length);
  stdin.set(list);
  stdin.set(tar, list.length);
  const result = await input.grader.exec(
    helper === undefined ? STAGE : `exec ${shellQuote(helper)} sh -c ${shellQuote(STAGE)}`,
    {
      user: "0:0",
      stdin,
      env: { VERIFIER_USER: verifierUser(input.harbor), WORKDIR: input.workdir },
      timeoutMs: STAGING_BASE_MS + stdin.length / STAGING_BYTES_PER_MS,
      signal: input.signal,
    },
  );
  if (result.aborted) throw input.signal?.reason ?? new Error("grading aborted");
  if (!result.stdout.endsWith(`${STAGED_MARK}\n`)) {
    throw new InfrastructureError(
      `could not stage the sealed end state in the Harbor grader: ${
        result.timedOut ? "it ran past the deadline" : firstLine(result.stderr) ||
          `exit ${result.exitCode}`
      }`,
    );
  }
}

/** STAGE's lines: deletions, what each unpacked entry replaces, and the commands shadowed. */
function stagingList(entries: readonly SnapshotEntry[]): string[] {
  const unpacked = staged(entries);
  const shadowing = new Set(
    entries.filter((entry) =>
      (entry.type === "file" && (entry.mode & 0o111) !== 0) || entry.type === "symlink"
    ).map((entry) => posix.basename(entry.path)),
  );
  return [
    ...entries.filter((entry) => entry.type === "removed" && !heldBack(entry.path))
      .map((entry) => `D /${entry.path}`),
    ...unpacked.filter((entry) => entry.type !== "removed")
      .map((entry) => `${entry.type === "dir" ? "T" : "F"} /${entry.path}`),
    ...[...shadowing].map((name) => `- ${name}`),
  ];
}

/**
 * What reaches the grader: not what it already holds ({@linkcode heldBack}), and nothing beneath
 * a sealed symlink, which unpacking would write through to wherever the link points.
 */
function staged(entries: readonly SnapshotEntry[]): SnapshotEntry[] {
  const links = new Set(entries.filter((entry) => entry.type === "symlink").map((e) => e.path));
  return entries.filter((entry) => {
    if (heldBack(entry.path)) return false;
    for (let cut = entry.path.indexOf("/"); cut > 0; cut = entry.path.indexOf("/", cut + 1)) {
      if (links.has(entry.path.slice(0, cut))) return false;
    }
    return true;
  });
}
