/**
 * Grading, in the order SPEC section 3 fixes: the checks run against the sealed snapshots; then a
 * fresh container (whose image holds `tests/` at `/verdict/tests`, owned by root) gets the sealed
 * workspace, and the success script's exit code decides, with the canary (which must fail)
 * guarding the test machinery; then the requirements. Pass = script exit 0 AND every check AND
 * every requirement. A success script's exit 0 counts only with its test runners' report of what
 * passed (`_evidence.ts`, `success.expect_tests`), and Python in the grader finds the workspace
 * after the standard library and the installed packages (`python_path.ts`).
 *
 * The success script and the canary each run in a fresh grader of their own, at the same time,
 * staged the same way and with the same environment ({@linkcode VERDICT_GRADER_ENV}), so nothing one of
 * them leaves behind reaches the other. Bytecode caches the agent left are not staged.
 *
 * @module
 */
import { InfrastructureError } from "../core/errors.ts";
import { shellQuote } from "../core/shell_quote.ts";
import { firstLine } from "../engine/docker.ts";
import {
  AGENT_OWNER,
  AGENT_USER,
  type ExecResult,
  type SandboxContainer,
} from "../engine/sandbox.ts";
import { type Snapshot, snapshotContents } from "../workspace/snapshot.ts";
import { packOwnedTar } from "../engine/tar.ts";
import { packWorkspaceTar } from "../workspace/workspace_tar.ts";
import type { BlobStore } from "../store/blob_store.ts";
import type { RunCounters } from "../store/run_counters.ts";
import type { Bucket, Verdict } from "../store/trial_record.ts";
import type { TreeEntry } from "../task/file_tree.ts";
import type { Task } from "../task/task.ts";
import { evidenceProblem, readEvidence, type TestCounts, TESTS_REPORT } from "./_evidence.ts";
import { EVIDENCE_MODULES, HOOKS_IMPORT, TESTS_REPORT_ENV } from "./_evidence_hooks.ts";
import { type CheckResult, runChecks } from "./checks.ts";
import { GRADER_PYTHON_FOLDER, pythonPathFiles } from "./python_path.ts";
import { checkRequirements, type RequirementResult } from "./requirements.ts";

/** Where `tests/` is staged in the grading container. */
export const TESTS_PATH = "/verdict/tests";

/** One run of a grading script. */
export interface ScriptRun {
  /** The script, relative to `tests/`. */
  script: string;
  /** Its exit code. */
  exitCode: number;
  /** Whether it ran past `success.timeout_s` and was killed. */
  timedOut: boolean;
  /** The end of its combined output. */
  output: string;
  /**
   * What its test runners reported (the success script only, when the manifest asks for a
   * report: see `success.expect_tests`); absent when none reported.
   */
  tests?: TestCounts;
}

/** A trial's grade. */
export interface Grade {
  /** Pass or fail. */
  verdict: Verdict;
  /** Where a failure belongs. */
  bucket: Bucket;
  /** Why, in one line. */
  reason: string;
  /** Every check's result. */
  checks: CheckResult[];
  /** Every requirement's result. */
  requirements: RequirementResult[];
  /** The success script's run, when it ran. */
  success: ScriptRun | null;
  /** The canary's run, when there is one and it ran. */
  canary: ScriptRun | null;
  /** A Harbor task's reward, when its verifier wrote one that parses. */
  reward?: number;
}

/** What grading needs. */
export interface GradeInput {
  /** The task. */
  task: Task;
  /** The blob store holding the snapshots' files. */
  blobs: BlobStore;
  /** The workspace as staged. */
  initial: Snapshot;
  /** The workspace as sealed when the agent stopped. */
  final: Snapshot;
  /** What the harness counted during the run. */
  counters: RunCounters;
  /** The task's `tests/` folder, as read when the run staged the task. */
  tests: readonly TreeEntry[];
  /** A fresh container from {@linkcode graderImageTar}'s image; nothing has run in it yet. */
  grader: SandboxContainer;
  /**
   * Another such container, for the canary: required when the task has one, so that the two
   * scripts share nothing.
   */
  canaryGrader?: SandboxContainer;
  /** Requirements only a model-driven run can meet are reported but do not fail the grade. */
  waiveModelOnly?: boolean;
  /**
   * Requirements on what Verdict's own loop does (policy denials, compactions) are reported as
   * not applicable and do not fail the grade: for an installed agent, whose own tools and context
   * go through neither.
   */
  waiveLoopOnly?: boolean;
  /** Stops grading. */
  signal?: AbortSignal;
}

const OUTPUT_TAIL = 4000;

/**
 * Grades a trial.
 *
 * @throws {InfrastructureError} when the grading container cannot be used (the trial is then an
 * infrastructure error, never the agent's failure).
 */
export async function grade(input: GradeInput): Promise<Grade> {
  const { task, blobs } = input;
  const checks = runChecks(task.manifest.checks, {
    initial: input.initial,
    final: input.final,
    read: (hash) => blobs.get(hash),
  });
  const requirements = checkRequirements(task.manifest.requires, input.counters).map((result) =>
    input.waiveLoopOnly && result.loopOnly && !result.passed
      ? {
        ...result,
        detail: `${result.detail} (not applicable: an installed agent's own tools and context ` +
          `go through neither Verdict's policy nor its compaction)`,
      }
      : result
  );
  const { tests } = input;
  const base = { checks, requirements, success: null, canary: null };

  const scriptProblem = missingOrNotExecutable(tests, task.manifest.success.script);
  if (scriptProblem) {
    return {
      ...base,
      verdict: "fail",
      bucket: "evaluator_error",
      reason: `success script ${scriptProblem}`,
    };
  }
  const canaryName = task.manifest.success.canary;
  const canaryProblem = canaryName ? missingOrNotExecutable(tests, canaryName) : undefined;
  if (canaryProblem) {
    return {
      ...base,
      verdict: "fail",
      bucket: "evaluator_error",
      reason: `canary ${canaryProblem}`,
    };
  }

  if (canaryName && !input.canaryGrader) {
    throw new Error("grading a task with a canary needs a second grader container");
  }
  const timeoutMs = task.manifest.success.timeout_s * 1000;
  const staging = staged(blobs, input.final, task.manifest.workdir);
  const expect = task.manifest.success.expect_tests;
  const [success, canary] = await settleBoth(
    stageAndRun(input.grader, staging, task.manifest.success.script, timeoutMs, input.signal)
      .then(async (run) => {
        if (expect === 0 || run.exitCode !== 0 || run.timedOut) return run;
        const tests = await readEvidence(input.grader);
        return tests ? { ...run, tests } : run;
      }),
    canaryName
      ? stageAndRun(input.canaryGrader!, staging, canaryName, timeoutMs, input.signal)
      : Promise.resolve(null),
  );
  return {
    ...base,
    success,
    canary,
    ...decide(
      { success, canary, expect },
      checks,
      requirements,
      input.waiveModelOnly,
      input.waiveLoopOnly,
    ),
  };
}

function decide(
  { success, canary, expect }: {
    success: ScriptRun;
    canary: ScriptRun | null;
    expect: number | undefined;
  },
  checks: CheckResult[],
  requirements: RequirementResult[],
  waiveModelOnly = false,
  waiveLoopOnly = false,
): Pick<Grade, "verdict" | "bucket" | "reason"> {
  const fail = (reason: string) => ({
    verdict: "fail" as const,
    bucket: "agent_failure" as const,
    reason,
  });
  if (canary && canary.exitCode === 0 && !canary.timedOut) {
    return fail(
      `tampering: the canary tests/${canary.script} passed, so the test machinery was subverted`,
    );
  }
  if (success.timedOut) return fail(`the success script timed out and was killed`);
  if (success.exitCode !== 0) {
    return fail(`tests failed (tests/${success.script} exited ${success.exitCode})`);
  }
  const noEvidence = evidenceProblem(success.tests, expect, success.script);
  if (noEvidence) return fail(noEvidence);
  const failedCheck = checks.find((check) => !check.passed);
  if (failedCheck) return fail(`check ${failedCheck.kind} failed: ${failedCheck.detail}`);
  const unmet = requirements.find((result) =>
    !result.passed && !(waiveModelOnly && result.modelOnly) &&
    !(waiveLoopOnly && result.loopOnly)
  );
  if (unmet) return fail(`requirement not met: ${unmet.detail}`);
  return {
    verdict: "pass",
    bucket: "pass",
    reason: expect === 0
      ? "tests passed (success.expect_tests is 0: no report of the tests was required)"
      : `tests passed (${success.tests?.passed} passed)`,
  };
}

/**
 * The files a grading container's image holds before any trial: the task's workdir, empty and
 * owned by the agent's user; `tests/` at `/verdict/tests`, owned by root and writable by no
 * one else, so that nothing the success script runs can change them; the file the test runners
 * report to, the agent user's, empty, in a folder of root's (so it can be written, never replaced
 * by a link or buried among other files); and, root's, what puts the workdir at the end of Python's
 * `sys.path` and the runners' reporting hooks (`python_path.ts`, `_evidence_hooks.ts`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { graderImageTar } from "./grade.ts";
 * const tar = graderImageTar("/workspace", [
 *   { path: "test.sh", type: "file", mode: 0o755, data: new TextEncoder().encode("exit 0") },
 * ]);
 * assert(tar.length % 512 === 0);
 * ```
 */
export function graderImageTar(workdir: string, tests: readonly TreeEntry[]): Uint8Array {
  const testsPath = TESTS_PATH.slice(1);
  return packOwnedTar([
    {
      entries: [{ path: workdir.replace(/^\/+/, ""), type: "dir", mode: 0o755 }],
      options: AGENT_OWNER,
    },
    {
      entries: [
        { path: posixParent(testsPath), type: "dir", mode: 0o755 },
        { path: testsPath, type: "dir", mode: 0o755 },
        ...tests.map((entry) => ({
          ...entry,
          path: `${testsPath}/${entry.path}`,
          ...("mode" in entry ? { mode: entry.mode & ~0o022 } : {}),
        })),
        { path: GRADER_PYTHON_FOLDER.slice(1), type: "dir", mode: 0o755 },
        { path: posixParent(TESTS_REPORT).slice(1), type: "dir", mode: 0o755 },
        ...pythonPathFiles(workdir, { imports: [HOOKS_IMPORT], modules: EVIDENCE_MODULES }),
      ],
      options: { uid: 0, gid: 0 },
    },
    {
      entries: [{ path: TESTS_REPORT.slice(1), type: "file", mode: 0o644, data: new Uint8Array() }],
      options: AGENT_OWNER,
    },
  ]);
}

function posixParent(path: string): string {
  return path.slice(0, path.lastIndexOf("/"));
}

/**
 * The environment of every grading script, success and canary alike. The working folder never
 * comes first on Python's `sys.path` (`python -m pytest` would otherwise run a `pytest` package
 * the agent left there), user site-packages are not read, no bytecode is written, and bytecode is
 * read only from a folder that does not exist yet, never from a `__pycache__` in the tree; pytest
 * loads no plugin it is not told to (it would load any `*.dist-info` with a `pytest11` entry point
 * found on `sys.path`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { GRADER_ENV } from "./grade.ts";
 * assert(GRADER_ENV.PYTHONSAFEPATH === "1");
 * ```
 */
export const GRADER_ENV: Readonly<Record<string, string>> = {
  PYTHONSAFEPATH: "1",
  PYTHONNOUSERSITE: "1",
  PYTHONDONTWRITEBYTECODE: "1",
  PYTHONPYCACHEPREFIX: "/tmp/verdict-pycache",
  PYTEST_DISABLE_PLUGIN_AUTOLOAD: "1",
};

/**
 * Whether a sealed path is a bytecode cache the grader must not get: every file sets the same
 * staging mtime, so a `.pyc` forged with that mtime and its source's size would be taken as
 * current while the source itself looks untouched.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isBytecodeCache } from "./grade.ts";
 * assert(isBytecodeCache("pkg/__pycache__/mod.cpython-311.pyc"));
 * assert(!isBytecodeCache("pkg/mod.py"));
 * ```
 */
export function isBytecodeCache(path: string): boolean {
  return path.split("/").includes("__pycache__") || /\.py[co]$/.test(path);
}

/**
 * The environment of a Verdict task's grading scripts: {@linkcode GRADER_ENV} and the file the
 * test runners report to.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { VERDICT_GRADER_ENV } from "./grade.ts";
 * assert.equal(VERDICT_GRADER_ENV.VERDICT_TESTS_REPORT, "/verdict/evidence/tests");
 * ```
 */
export const VERDICT_GRADER_ENV: Readonly<Record<string, string>> = {
  ...GRADER_ENV,
  [TESTS_REPORT_ENV]: TESTS_REPORT,
};

/** How the sealed workspace reaches a grader, the same for both scripts. */
type Staging =
  /** Unpacked by the grader in the script's exec (`unpackAndExec`), from this tar. */
  | {
    kind: "unpack";
    tar: Uint8Array;
    /** Time for unpacking, on top of the script's `success.timeout_s`. */
    allowanceMs: number;
  }
  /** Copied in by the engine before the script's exec. */
  | { kind: "copy"; tar: Uint8Array };

// Unpacking runs in the script's exec: it gets its own time, so a big workspace does not eat
// into the tests' budget (measured: about 6 s for 50,000 files, 51 MB).
const STAGING_BASE_MS = 10_000;
const STAGING_BYTES_PER_MS = 10_000;

/**
 * How the sealed workspace, less its bytecode caches, reaches each grader. Usually it is unpacked
 * by the grader's own `tar`, running as the agent's user (so the files are the agent's, as in its
 * container) in the same exec as the script. An unprivileged `tar` cannot give a file a set-id or
 * sticky bit, and busybox's cannot fill a folder it has already made read-only; an end state with
 * such modes is copied in by the engine first (`copyIn`, one operation more).
 */
function staged(blobs: BlobStore, final: Snapshot, workdir: string): Staging {
  const graded = { ...final, entries: final.entries.filter((e) => !isBytecodeCache(e.path)) };
  const unpackable = graded.entries.every((entry) =>
    entry.type === "symlink" || entry.type === "removed" ||
    ((entry.mode & 0o7000) === 0 && (entry.type !== "dir" || (entry.mode & 0o700) === 0o700))
  );
  const contents = snapshotContents(blobs, graded);
  if (!unpackable) return { kind: "copy", tar: packWorkspaceTar(contents, workdir) };
  const tar = packWorkspaceTar(contents, ".");
  return {
    kind: "unpack",
    tar,
    allowanceMs: STAGING_BASE_MS + tar.length / STAGING_BYTES_PER_MS,
  };
}

/** Stages the workspace in a fresh grader and runs one script there. */
async function stageAndRun(
  grader: SandboxContainer,
  staging: Staging,
  script: string,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<ScriptRun> {
  const command = shellQuote(`${TESTS_PATH}/${script}`);
  const options = { user: AGENT_USER, env: { ...VERDICT_GRADER_ENV }, timeoutMs, signal };
  let result: ExecResult & { unpacked?: boolean };
  if (staging.kind === "copy") {
    await grader.copyIn(staging.tar, "/");
    result = await grader.exec(command, options);
  } else {
    result = await grader.unpackAndExec(staging.tar, command, {
      ...options,
      timeoutMs: timeoutMs + staging.allowanceMs,
    });
  }
  if (result.aborted) throw signal?.reason ?? new Error("grading aborted");
  if (result.unpacked === false) {
    throw new InfrastructureError(
      `could not stage the sealed workspace in the grading container: ${
        result.timedOut
          ? `it ran past the deadline`
          : firstLine(result.stderr) || `exit ${result.exitCode}`
      }`,
    );
  }
  const output = `${result.stdout}${result.stderr}`;
  return {
    script,
    exitCode: result.exitCode,
    timedOut: result.timedOut,
    output: output.length > OUTPUT_TAIL ? `...${output.slice(-OUTPUT_TAIL)}` : output,
  };
}

/** Waits for both scripts, so neither is left running; then the first failure, if any, throws. */
async function settleBoth<A, B>(first: Promise<A>, second: Promise<B>): Promise<[A, B]> {
  const [a, b] = await Promise.allSettled([first, second]);
  if (a.status === "rejected") throw a.reason;
  if (b.status === "rejected") throw b.reason;
  return [a.value, b.value];
}

function missingOrNotExecutable(
  tests: readonly TreeEntry[],
  script: string,
): string | undefined {
  const entry = tests.find((candidate) => candidate.path === script);
  if (entry === undefined || entry.type !== "file") return `tests/${script} is missing`;
  if ((entry.mode & 0o111) === 0) return `tests/${script} is not executable (chmod +x it)`;
  return undefined;
}
