/**
 * Grading a Harbor task (SPEC section 3b), stricter than Harbor grades it. Harbor runs its
 * verifier in the agent's own container; Verdict runs it in a fresh one, started from the task's
 * image before the agent stopped (nothing has run in it), that gets the sealed end state:
 *
 * 1. A sealed change at a grader-hijack path (`hijack_paths.ts`: the loader's preload, the
 *    shells, interpreters and test runner the grader runs, start-up hooks, test-runner
 *    configuration outside `/tests`) is `tampering`, unless the task allows the path; nothing runs.
 * 2. With the image's own tools, still untouched: the paths the agent deleted are deleted, and
 *    every command the agent shadowed (an executable it added or changed whose name the image
 *    already resolves on `PATH`) is copied, as the image has it, into a folder that comes first on
 *    the verifier's `PATH`. The sealed changes are copied in, less anything under `/tests` and
 *    `/logs/verifier` (the image holds the task's own `tests/` and an empty `/logs/verifier`) and
 *    less bytecode caches; a grader-owned `.pth` appends the image's `WORKDIR` to Python's path.
 * 3. `bash` reads `tests/test.sh` from the exec's stdin into memory, then runs it as
 *    `[verifier].user` under `[verifier].timeout_sec`, in the `WORKDIR`, with the image's
 *    environment, `[verifier].env` and {@linkcode GRADER_ENV}; once it ends, that shell freezes
 *    and counts what is left running. Its exit code (the engine's word) says whether the script
 *    ended by itself and left nothing behind.
 * 4. The engine stops the grader, so nothing runs any more, and copies `/logs/verifier` out:
 *    `reward.txt` (a number) or `reward.json` (`{"reward": x}`, or one number) decides. A passing
 *    reward counts only when the script ended by itself with nothing left running, and, when the
 *    script runs pytest, when pytest's own summary shows tests passed and (for full marks) none
 *    failed; otherwise the trial is `tampering`. No reward, or one that does not parse, is an
 *    evaluator error with the verifier's output.
 *
 * Code under test runs as the verifier's user, often root, in the same container: it can forge
 * pytest's summary or act on the verifier's own process (ptrace); docs/tasks.md says so.
 *
 * @module
 */
import { InfrastructureError } from "../core/errors.ts";
import { firstLine } from "../engine/docker.ts";
import { shellQuote } from "../core/shell_quote.ts";
import type { SandboxContainer } from "../engine/sandbox.ts";
import { type Snapshot, snapshotContents, type SnapshotEntry } from "../workspace/snapshot.ts";
import type { TarEntry } from "../engine/tar.ts";
import { packOwnedTar } from "../engine/tar.ts";
import type { BlobStore } from "../store/blob_store.ts";
import type { TreeEntry } from "../task/file_tree.ts";
import { posix } from "node:path";
import type { HarborSettings } from "../task/task.ts";
import { type Grade, GRADER_ENV, isBytecodeCache } from "./grade.ts";
import { missingEvidence, runsPytest } from "./_pytest_evidence.ts";
import { findHijacks } from "./hijack_paths.ts";

/** Where the task's `tests/` is in a Harbor grader. */
export const HARBOR_TESTS = "/tests";

/** Where the verifier writes its reward. */
export const HARBOR_VERIFIER_LOGS = "/logs/verifier";

/** The folder of the image's own copies of commands the agent shadowed, first on `PATH`. */
export const TRUSTED_BIN = "/verdict/trusted-bin";

/** The grader-owned `.pth` that appends the image's WORKDIR to Python's path. */
export const WORKDIR_PTH = "zz-verdict-workdir.pth";

/** What grading a Harbor task needs. */
export interface HarborGradeInput {
  /** The task's Harbor settings. */
  harbor: HarborSettings;
  /** The image's `WORKDIR`, where the verifier runs. */
  workdir: string;
  /** The blob store holding the sealed files. */
  blobs: BlobStore;
  /** The whole-container seal (paths relative to `/`). */
  final: Snapshot;
  /** The task's `tests/` (its `test.sh` is what the verifier runs). */
  tests: readonly TreeEntry[];
  /** A fresh container from {@linkcode harborGraderTar}'s image; nothing has run in it yet. */
  grader: SandboxContainer;
  /** The reward at or above which a trial passes. */
  passReward: number;
  /** Stops grading. */
  signal?: AbortSignal;
}

const OUTPUT_TAIL = 4000;
// Time for staging the sealed changes (deletions, the image's own commands, the changes unpacked),
// on top of the verifier's own, as for a Verdict task's grader (about 6 s for 51 MB measured there).
const STAGING_BASE_MS = 10_000;
const STAGING_BYTES_PER_MS = 10_000;

/**
 * What a Harbor grader's image adds to the task's image: the task's `tests/` at `/tests` and an
 * empty `/logs/verifier`, owned by root (the staging hands it to a verifier user of another name).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { harborGraderTar } from "./harbor_grade.ts";
 * const tar = harborGraderTar([{ path: "test.sh", type: "file", mode: 0o755, data: new Uint8Array() }]);
 * assert(tar.length % 512 === 0);
 * ```
 */
export function harborGraderTar(tests: readonly TreeEntry[]): Uint8Array {
  return packOwnedTar([{
    entries: [
      ...graderImageTarEntries(tests),
      { path: "logs", type: "dir", mode: 0o755 },
      { path: "logs/verifier", type: "dir", mode: 0o755 },
    ],
    options: { uid: 0, gid: 0 },
  }]);
}

function graderImageTarEntries(tests: readonly TreeEntry[]): TarEntry[] {
  return [
    { path: "tests", type: "dir", mode: 0o755 },
    ...tests.map((entry) => ({ ...entry, path: `tests/${entry.path}` }) as TarEntry),
  ];
}

/**
 * Grades a Harbor task's sealed end state in its fresh grader.
 *
 * @throws {InfrastructureError} when the grader cannot be used (never the agent's failure).
 */
export async function gradeHarbor(input: HarborGradeInput): Promise<Grade> {
  const { grader, harbor, signal } = input;
  const entries = input.final.entries.filter((entry) => !isBytecodeCache(entry.path));
  const hijacked = hijackGrade(input, entries);
  if (hijacked) return hijacked;
  await stage(input, entries);
  const script = input.tests.find((entry) => entry.path === "test.sh");
  if (script?.type !== "file") {
    throw new InfrastructureError("the Harbor task's tests/test.sh was not staged for grading");
  }
  const result = await grader.exec(RUN_VERIFIER, {
    user: verifierUser(harbor),
    workdir: input.workdir,
    env: { ...GRADER_ENV, ...harbor.verifier.env },
    timeoutMs: harbor.verifier.timeoutSec * 1000,
    stdin: script.data,
    signal,
  });
  if (result.aborted) throw signal?.reason ?? new Error("grading aborted");
  const { said, end } = splitEndReport(result.stdout);
  const output = `${said}${result.stderr}`;
  const graded = (bucket: Grade["bucket"], reason: string, reward?: number): Grade => ({
    ...NO_CHECKS,
    success: {
      script: "test.sh",
      exitCode: end?.status ?? result.exitCode,
      timedOut: result.timedOut,
      output: output.length > OUTPUT_TAIL ? `...${output.slice(-OUTPUT_TAIL)}` : output,
    },
    verdict: bucket === "pass" ? "pass" : "fail",
    bucket,
    reason,
    ...(reward === undefined ? {} : { reward }),
  });
  if (result.timedOut) {
    return graded(
      "agent_failure",
      `the verifier (tests/test.sh) ran past ${harbor.verifier.timeoutSec} s and was killed`,
    );
  }
  // Nothing runs once the reward is read: the engine stops the grader and copies the folder out.
  await grader.stop();
  const written = await rewardWritten(grader);
  const reward = typeof written === "string" ? written : parseReward(written.file, written.text);
  if (typeof reward === "string") {
    return graded(/^tampering:/.test(reward) ? "agent_failure" : "evaluator_error", reward);
  }
  const shown = `reward ${reward}`;
  if (reward < input.passReward) {
    return graded("agent_failure", `${shown}, below the pass mark ${input.passReward}`, reward);
  }
  const untrusted = endProblem(result.exitCode, end) ??
    missingEvidence(
      new TextDecoder().decode(script.data),
      `${result.stdout}\n${result.stderr}`,
      reward >= 1,
    );
  if (untrusted !== null) {
    return graded("agent_failure", `tampering: ${shown}, but ${untrusted}`, reward);
  }
  // Never a silent pass: a reward no pytest summary can back says so.
  const unbacked = runsPytest(new TextDecoder().decode(script.data))
    ? ""
    : " (not cross-checked: the verifier runs no pytest)";
  return graded("pass", `${shown}${unbacked}`, reward);
}

const NO_CHECKS = { checks: [], requirements: [], canary: null };

// The tampering grade for sealed changes at grader-hijack paths (the task's allowed ones aside),
// or null when there are none.
function hijackGrade(input: HarborGradeInput, entries: readonly SnapshotEntry[]): Grade | null {
  const hijacks = findHijacks(
    entries.filter((entry) => !heldBack(entry.path)).map((entry) => ({
      path: entry.path,
      ...(entry.type === "file" && entry.path.endsWith(".pth")
        ? { pth: new TextDecoder().decode(input.blobs.get(entry.sha256)) }
        : {}),
    })),
    input.workdir,
    input.harbor.verifier.allowedHijackPaths ?? [],
  );
  if (hijacks.length === 0) return null;
  const [first] = hijacks;
  return {
    ...NO_CHECKS,
    success: null,
    verdict: "fail",
    bucket: "agent_failure",
    reason: `tampering: the agent changed ${first.path}, ${first.kind}${
      hijacks.length > 1 ? ` (and ${hijacks.length - 1} more grader-hijack paths)` : ""
    }; a task that needs it allows it in [verifier].allowed_hijack_paths`,
  };
}

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

// The verifier: bash reads test.sh from the exec's stdin into memory before anything of the task
// runs (root code cannot rewrite what it runs, as it could a file bash reads as it goes), runs it
// in a subshell, then freezes and counts what is left running outside the container's own
// session. Its exit code, which the engine reports, is 0 only when the script ended by itself
// (status below 128) and left nothing running; the mark line only describes (it is imitable).
const END_MARK = "verdict: the verifier ended";
const PARENT = `IFS= read -r -d '' verdict_script
exec </dev/null
( eval "$verdict_script" )
status=$?
kill -STOP -1 2>/dev/null
read -r line < /proc/1/stat; set -- \${line##*) }; keep=$4
left=0; names=""
for stat in /proc/[0-9]*/stat; do
  read -r line < "$stat" 2>/dev/null || continue
  pid=\${stat#/proc/}; pid=\${pid%/stat}
  [ "$pid" = "$$" ] && continue
  set -- \${line##*) }
  [ "$1" = Z ] || [ "$4" = "$keep" ] && continue
  comm=\${line#*(}; left=$((left + 1)); names="$names \${comm%%)*}"
done
printf '\\n%s %s %s%s\\n' '${END_MARK}' "$status" "$left" "$names"
[ "$left" -eq 0 ] || exit 4
[ "$status" -lt 128 ] || exit 3
exit 0`;
const RUN_VERIFIER = `PATH=${TRUSTED_BIN}:"$PATH"; export PATH
exec bash -c ${shellQuote(PARENT)} ${HARBOR_TESTS}/test.sh`;

// Stages the sealed changes (all but bytecode caches) in the untouched grader, as root, by the
// engine's helper when the engine has one (else by the image's own shell and tools).
async function stage(input: HarborGradeInput, entries: readonly SnapshotEntry[]): Promise<void> {
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

// STAGE's lines: deletions, what each unpacked entry replaces, and the commands shadowed.
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

function verifierUser(harbor: HarborSettings): string {
  return harbor.verifier.user === "root" ? "0:0" : harbor.verifier.user;
}

// The reward file the verifier left, copied out of the stopped grader by the engine, or why there
// is none.
async function rewardWritten(
  grader: SandboxContainer,
): Promise<{ file: "reward.txt" | "reward.json"; text: string } | string> {
  let copied: TarEntry[];
  try {
    copied = await grader.copyOut(HARBOR_VERIFIER_LOGS);
  } catch (error) {
    if (!(error instanceof InfrastructureError)) throw error;
    return `tampering: ${HARBOR_VERIFIER_LOGS} is gone from the grader: ${error.message}`;
  }
  const folder = copied.find((entry) => entry.path === "verifier");
  if (folder?.type !== "dir") {
    return `tampering: ${HARBOR_VERIFIER_LOGS} is no longer a folder after the verifier ran`;
  }
  const files = ["reward.txt", "reward.json"].flatMap((name) => {
    const entry = copied.find((candidate) => candidate.path === `verifier/${name}`);
    return entry?.type === "file"
      ? [{ file: name as "reward.txt" | "reward.json", text: new TextDecoder().decode(entry.data) }]
      : [];
  });
  if (files.length === 0) {
    return `no reward: the verifier wrote neither ${HARBOR_VERIFIER_LOGS}/reward.txt nor reward.json`;
  }
  if (files.length === 2) {
    const [text, json] = files.map((written) => parseReward(written.file, written.text));
    if (text !== json) {
      return `tampering: ${HARBOR_VERIFIER_LOGS} holds both reward.txt (${text}) and reward.json ` +
        `(${json}), and they disagree`;
    }
  }
  return files[0];
}

/** How the verifier's shell said it ended (the mark line; it only describes). */
interface EndReport {
  /** The script's exit status. */
  status: number;
  /** How many processes it left running. */
  left: number;
  /** Their names. */
  names: string[];
}

/**
 * Splits what the verifier's exec printed into the verifier's own output and the end report its
 * shell printed last, or null when there is none.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { splitEndReport } from "./harbor_grade.ts";
 * const printed = "1 passed\n\nverdict: the verifier ended 0 1 sleep\n";
 * assert.deepEqual(splitEndReport(printed), {
 *   said: "1 passed\n",
 *   end: { status: 0, left: 1, names: ["sleep"] },
 * });
 * ```
 */
export function splitEndReport(stdout: string): { said: string; end: EndReport | null } {
  const mark = `\n${END_MARK} `;
  const at = stdout.lastIndexOf(mark);
  if (at < 0) return { said: stdout, end: null };
  const [status, left, ...names] = stdout.slice(at + mark.length).trim().split(" ");
  return {
    said: stdout.slice(0, at),
    end: { status: Number(status), left: Number(left), names: names.filter(Boolean) },
  };
}

// Why the way the verifier's shell ended does not let its reward count, or null when it ended by
// itself and left nothing running. The exit code is the engine's word; the report only names.
function endProblem(exitCode: number, end: EndReport | null): string | null {
  if (exitCode === 0) return null;
  if (exitCode === 4 && end) {
    return `the verifier left ${end.left} process${end.left === 1 ? "" : "es"} running when its ` +
      `script ended (${end.names.slice(0, 5).join(", ")}): a reward written while they ran ` +
      "cannot be told from theirs (a task's test.sh must stop what it starts)";
  }
  if (exitCode === 3 && end) {
    return `the verifier's script did not end by itself: its shell ended with status ${end.status} ` +
      "(killed by a signal, or exiting as if it were)";
  }
  return `the verifier's shell was killed or stopped from outside (exit ${exitCode}): the ` +
    "script did not end by itself";
}

// What reaches the grader: not what it already holds (below), and nothing beneath a sealed
// symlink, which unpacking would write through to wherever the link points.
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

// What the image already holds for grading (`/tests`, `/logs/verifier`), and the folders above it:
// neither a planted copy nor a deletion, a link or a file in their place reaches the grader.
function heldBack(path: string): boolean {
  return ["tests", "logs/verifier"].some((folder) =>
    path === folder || path.startsWith(`${folder}/`) || folder.startsWith(`${path}/`)
  );
}

/**
 * Reads the reward the verifier wrote, or says why there is none.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseReward } from "./harbor_grade.ts";
 * assert.equal(parseReward("reward.txt", "1\n"), 1);
 * assert.equal(parseReward("reward.json", '{"reward": 0.75}'), 0.75);
 * assert.match(String(parseReward("reward.txt", "yes")), /not a number/);
 * ```
 */
export function parseReward(file: "reward.txt" | "reward.json", text: string): number | string {
  const where = `${HARBOR_VERIFIER_LOGS}/${file}`;
  if (file === "reward.txt") {
    const trimmed = text.trim();
    const value = Number(trimmed);
    if (trimmed === "" || !Number.isFinite(value)) {
      return `${where} is not a number: ${JSON.stringify(trimmed.slice(0, 80))}`;
    }
    return value;
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return `${where} is not JSON: ${JSON.stringify(text.trim().slice(0, 80))}`;
  }
  if (typeof data === "number" && Number.isFinite(data)) return data;
  if (data !== null && typeof data === "object" && !Array.isArray(data)) {
    const values = Object.entries(data as Record<string, unknown>);
    const reward = (data as Record<string, unknown>).reward;
    if (typeof reward === "number" && Number.isFinite(reward)) return reward;
    const [only] = values;
    if (values.length === 1 && typeof only[1] === "number" && Number.isFinite(only[1])) {
      return only[1];
    }
  }
  return `${where} holds no "reward" number: ${JSON.stringify(text.trim().slice(0, 80))}`;
}
