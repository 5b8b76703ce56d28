/**
 * Grading a Harbor task (SPEC section 3b), stricter than Harbor grades it. Harbor runs its
 * verifier in the agent's own container; Verdict runs it in a fresh one, started from the task's
 * image before the agent stopped (nothing has run in it), that gets the sealed end state:
 *
 * 1. With the image's own tools, still untouched: the paths the agent deleted are deleted, and
 *    every command the agent shadowed (an executable it added or changed whose name the image
 *    already resolves on `PATH`) is copied, as the image has it, into a folder that comes first on
 *    the verifier's `PATH`.
 * 2. The sealed changes are copied in by the engine, less anything under `/tests` and
 *    `/logs/verifier`: the image already holds the task's own `tests/` at `/tests` and an empty
 *    `/logs/verifier`, so a planted test or reward never reaches the verifier.
 * 3. `bash /tests/test.sh` runs as `[verifier].user` under `[verifier].timeout_sec`, in the image's
 *    `WORKDIR`, with the image's environment, `[verifier].env` and {@linkcode GRADER_ENV} (Python
 *    never puts the working folder first on `sys.path`; pytest autoloads no plugin).
 * 4. The engine copies `/logs/verifier` out: `reward.txt` (a number) or `reward.json`
 *    (`{"reward": x}`, or one number) decides: pass when the reward reaches the pass mark (1
 *    unless `--pass-reward`). No reward, or one that does not parse, is an evaluator error with
 *    the verifier's output.
 *
 * @module
 */
import { InfrastructureError } from "../core/errors.ts";
import { firstLine } from "../sandbox/docker.ts";
import { shellQuote } from "../core/shell_quote.ts";
import type { SandboxContainer } from "../sandbox/sandbox.ts";
import { type Snapshot, snapshotContents, type SnapshotEntry } from "../sandbox/snapshot.ts";
import type { TarEntry } from "../sandbox/tar.ts";
import { packOwnedTar } from "../sandbox/tar.ts";
import type { BlobStore } from "../store/blob_store.ts";
import type { TreeEntry } from "../task/file_tree.ts";
import { posix } from "node:path";
import type { HarborSettings } from "../task/task.ts";
import { type Grade, GRADER_ENV, type ScriptRun } from "./grade.ts";

/** Where the task's `tests/` is in a Harbor grader. */
export const HARBOR_TESTS = "/tests";

/** Where the verifier writes its reward. */
export const HARBOR_VERIFIER_LOGS = "/logs/verifier";

/** The folder of the image's own copies of commands the agent shadowed, first on `PATH`. */
export const TRUSTED_BIN = "/verdict/trusted-bin";

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
 * What a Harbor grader's image adds to the task's image: the task's `tests/` at `/tests` (owned
 * by root) and an empty `/logs/verifier` anyone may write.
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
      { path: "logs/verifier", type: "dir", mode: 0o777 },
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
  const base = { checks: [], requirements: [], canary: null };
  const entries = input.final.entries;
  const removed = entries.filter((entry) => entry.type === "removed" && !heldBack(entry.path))
    .map((entry) => entry.path);
  const shadowing = [
    ...new Set(
      entries.filter((entry) =>
        (entry.type === "file" && (entry.mode & 0o111) !== 0) || entry.type === "symlink"
      ).map((entry) => posix.basename(entry.path)),
    ),
  ];
  const stdin = packOwnedTar([{
    entries: snapshotContents(input.blobs, { ...input.final, entries: staged(entries) }),
    options: { uid: 0, gid: 0 },
  }]);
  const staging = {
    timeoutMs: STAGING_BASE_MS + stdin.length / STAGING_BYTES_PER_MS,
    stdin,
    env: { DELETED: removed.map((path) => `/${path}`).join("\n"), SHADOWING: shadowing.join("\n") },
    signal,
  };
  const user = harbor.verifier.user === "root" ? "0:0" : harbor.verifier.user;
  const test = {
    workdir: input.workdir,
    env: { ...GRADER_ENV, ...harbor.verifier.env },
    timeoutMs: harbor.verifier.timeoutSec * 1000,
    signal,
  };
  // Staged as root; a root verifier runs in the same exec (one engine call fewer).
  let result = await grader.exec(
    user === "0:0" ? `${STAGE}\n${RUN_VERIFIER}` : STAGE,
    user === "0:0"
      ? {
        ...staging,
        ...test,
        user,
        env: { ...test.env, ...staging.env },
        timeoutMs: staging.timeoutMs + test.timeoutMs,
      }
      : { ...staging, user: "0:0" },
  );
  if (result.aborted) throw signal?.reason ?? new Error("grading aborted");
  if (!result.stdout.startsWith(`${STAGED_MARK}\n`)) {
    throw new InfrastructureError(
      `could not stage the sealed end state in the Harbor grader: ${
        result.timedOut ? "it ran past the deadline" : firstLine(result.stderr) ||
          `exit ${result.exitCode}`
      }`,
    );
  }
  result = user === "0:0"
    ? { ...result, stdout: result.stdout.slice(STAGED_MARK.length + 1) }
    : await grader.exec(RUN_VERIFIER, { ...test, user });
  if (result.aborted) throw signal?.reason ?? new Error("grading aborted");
  const { said, reward: written } = splitRewardReport(result.stdout);
  const output = `${said}${result.stderr}`;
  const success: ScriptRun = {
    script: "test.sh",
    exitCode: result.exitCode,
    timedOut: result.timedOut,
    output: output.length > OUTPUT_TAIL ? `...${output.slice(-OUTPUT_TAIL)}` : output,
  };
  if (result.timedOut) {
    return {
      ...base,
      success,
      verdict: "fail",
      bucket: "agent_failure",
      reason:
        `the verifier (tests/test.sh) ran past ${harbor.verifier.timeoutSec} s and was killed`,
    };
  }
  const reward = written === null
    ? `no reward: the verifier wrote neither ${HARBOR_VERIFIER_LOGS}/reward.txt nor reward.json`
    : parseReward(written.file, written.text);
  if (typeof reward === "string") {
    return { ...base, success, verdict: "fail", bucket: "evaluator_error", reason: reward };
  }
  const shown = `reward ${reward}`;
  return reward >= input.passReward
    ? { ...base, success, reward, verdict: "pass", bucket: "pass", reason: shown }
    : {
      ...base,
      success,
      reward,
      verdict: "fail",
      bucket: "agent_failure",
      reason: `${shown}, below the pass mark ${input.passReward}`,
    };
}

// Run as root in the untouched grader, with the image's own tools: DELETED lists the paths the
// agent deleted, SHADOWING the names of executables it added or changed (`command -v` answers as
// the image would); then the sealed changes on stdin are unpacked at /, owners and modes as sealed.
const STAGED_MARK = "verdict: sealed end state staged";
const STAGE = `set -e
printf '%s\\n' "$DELETED" | while IFS= read -r path; do [ -z "$path" ] || rm -rf -- "$path"; done
mkdir -p ${TRUSTED_BIN}
printf '%s\\n' "$SHADOWING" | while IFS= read -r name; do
  [ -n "$name" ] || continue
  found=$(command -v -- "$name" 2>/dev/null || true)
  case "$found" in /*) cp -L -p -- "$found" ${shellQuote(TRUSTED_BIN)}/ ;; esac
done
(umask 0 && tar -x -p -f - -C /)
echo '${STAGED_MARK}'
set +e`;
// The verifier, then the reward it wrote, after a mark (shell builtins only): the same exec
// reads it back, one engine call fewer than copying /logs/verifier out.
const REWARD_MARK = "verdict: the reward written by the verifier follows";
const RUN_VERIFIER = `unset DELETED SHADOWING
PATH=${TRUSTED_BIN}:"$PATH"; export PATH
bash ${HARBOR_TESTS}/test.sh
status=$?
printf '\\n%s\\n' '${REWARD_MARK}'
for name in reward.txt reward.json; do
  [ -f "${HARBOR_VERIFIER_LOGS}/$name" ] || continue
  printf '%s\\n' "$name"
  while IFS= read -r line || [ -n "$line" ]; do printf '%s\\n' "$line"; done < "${HARBOR_VERIFIER_LOGS}/$name"
  break
done
exit $status`;

/**
 * Splits what the verifier's exec printed into the verifier's own output and the reward file it
 * wrote (named on the line after the last mark), or null when it wrote none.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { splitRewardReport } from "./harbor_grade.ts";
 * const printed = "1 passed\n\nverdict: the reward written by the verifier follows\nreward.txt\n1\n";
 * assert.deepEqual(splitRewardReport(printed), {
 *   said: "1 passed\n",
 *   reward: { file: "reward.txt", text: "1\n" },
 * });
 * ```
 */
export function splitRewardReport(stdout: string): {
  said: string;
  reward: { file: "reward.txt" | "reward.json"; text: string } | null;
} {
  const mark = `\n${REWARD_MARK}\n`;
  const at = stdout.lastIndexOf(mark);
  if (at < 0) return { said: stdout, reward: null };
  const rest = stdout.slice(at + mark.length);
  const newline = rest.indexOf("\n");
  const file = newline < 0 ? rest : rest.slice(0, newline);
  const reward = file === "reward.txt" || file === "reward.json"
    ? { file, text: rest.slice(newline + 1) } as const
    : null;
  return { said: stdout.slice(0, at), reward };
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
