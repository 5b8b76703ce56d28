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
import { AGENT_USER, type LaterInput, type SandboxContainer } from "../engine/sandbox.ts";
import { packTar } from "../engine/tar.ts";
import { type Snapshot, snapshotContents } from "../workspace/snapshot.ts";
import { packWorkspaceTar } from "../workspace/workspace_tar.ts";
import type { BlobStore } from "../store/blob_store.ts";
import type { RunCounters } from "../store/run_counters.ts";
import type { Bucket, Verdict } from "../store/trial_record.ts";
import type { TreeEntry } from "../task/file_tree.ts";
import type { Task } from "../task/task.ts";
import {
  evidenceProblem,
  MAX_REPORT_BYTES,
  parseReport,
  type TestCounts,
  TESTS_REPORT,
} from "./_evidence.ts";
import { type CheckResult, runChecks } from "./checks.ts";
import { checkRequirements, type RequirementResult } from "./requirements.ts";
import { isBytecodeCache, TESTS_PATH, VERDICT_GRADER_ENV } from "./grader_image.ts";

export {
  GRADER_ENV,
  graderImageTar,
  isBytecodeCache,
  TESTS_PATH,
  VERDICT_GRADER_ENV,
} from "./grader_image.ts";

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
  /** The workspace as sealed when the agent stopped, or its sealing still under way. */
  final: Snapshot | Promise<Snapshot>;
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
// What a script's exec unpacks when the workspace went in through the engine.
const EMPTY_TAR = packTar([]);

/**
 * Grades a trial. With `final` still to come (the end state being sealed), the graders' execs
 * start at once and get the workspace when it is sealed, so their start is off the trial's path.
 *
 * @throws {InfrastructureError} when the grading container cannot be used (the trial is then an
 * infrastructure error, never the agent's failure); the reason `final` rejects with.
 */
export async function grade(input: GradeInput): Promise<Grade> {
  const { task, blobs, tests } = input;
  const final = Promise.resolve(input.final);
  final.catch(() => {}); // awaited below, unless a grader is missing
  const success = task.manifest.success;
  const scriptProblem = missingOrNotExecutable(tests, success.script);
  const canaryProblem = success.canary ? missingOrNotExecutable(tests, success.canary) : undefined;
  if (!scriptProblem && !canaryProblem && success.canary && !input.canaryGrader) {
    throw new Error("grading a task with a canary needs a second grader container");
  }
  const runs = scriptProblem || canaryProblem ? undefined : runScripts(input, final);
  runs?.catch(() => {}); // awaited below, unless the end state never came
  const sealed = await final;
  const checks = runChecks(task.manifest.checks, {
    initial: input.initial,
    final: sealed,
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
  const base = { checks, requirements, success: null, canary: null };
  const problem = scriptProblem ? `success script ${scriptProblem}` : `canary ${canaryProblem}`;
  if (runs === undefined) {
    return { ...base, verdict: "fail", bucket: "evaluator_error", reason: problem };
  }
  const [successRun, canaryRun] = await runs;
  const expect = success.expect_tests;
  return {
    ...base,
    success: successRun,
    canary: canaryRun,
    ...decide(
      { success: successRun, canary: canaryRun, expect },
      checks,
      requirements,
      input.waiveModelOnly,
      input.waiveLoopOnly,
    ),
  };
}

/** The success script and the canary, each in its own grader, staged from the sealed end state. */
function runScripts(
  input: GradeInput,
  final: Promise<Snapshot>,
): Promise<[ScriptRun, ScriptRun | null]> {
  const { task, blobs } = input;
  const { success } = task.manifest;
  const staging = final.then((sealed) => staged(blobs, sealed, task.manifest.workdir));
  const script = { timeoutMs: success.timeout_s * 1000, signal: input.signal };
  return settleBoth(
    stageAndRun(input.grader, staging, {
      ...script,
      script: success.script,
      report: success.expect_tests !== 0,
    }),
    success.canary
      ? stageAndRun(input.canaryGrader!, staging, {
        ...script,
        script: success.canary,
        report: false,
      })
      : Promise.resolve(null),
  );
}

/** The verdict from the scripts' runs, the checks and the requirements, in SPEC order. */
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

/** One script's run in a grader. */
interface ScriptOptions {
  /** The script, relative to `tests/`. */
  script: string;
  /** Its deadline (`success.timeout_s`). */
  timeoutMs: number;
  /** Whether its test runners' report is read, in the same exec, when it exits 0. */
  report: boolean;
  /** Stops it. */
  signal?: AbortSignal;
}

/**
 * Runs one script in a fresh grader: its exec starts at once and unpacks the workspace when
 * `staging` brings it (the script's deadline counts from then).
 */
async function stageAndRun(
  grader: SandboxContainer,
  staging: Promise<Staging>,
  { script, timeoutMs, report, signal }: ScriptOptions,
): Promise<ScriptRun> {
  const command = shellQuote(`${TESTS_PATH}/${script}`);
  const options = {
    user: AGENT_USER,
    env: { ...VERDICT_GRADER_ENV },
    signal,
    timeoutMs,
    ...(report ? { report: { path: TESTS_REPORT, maxBytes: MAX_REPORT_BYTES } } : {}),
  };
  // Files with modes an unprivileged `tar` cannot make go in through the engine first; the
  // script's exec then unpacks nothing.
  const input = staging.then(async (ready): Promise<LaterInput> => {
    if (ready.kind === "unpack") {
      return { stdin: ready.tar, timeoutMs: timeoutMs + ready.allowanceMs };
    }
    await grader.copyIn(ready.tar, "/");
    return { stdin: EMPTY_TAR, timeoutMs };
  });
  input.catch(() => {}); // the exec reports it, unless it failed before taking it
  const result = await grader.unpackAndExec(input, command, options);
  if (result.aborted) throw signal?.reason ?? new Error("grading aborted");
  if (!result.unpacked) {
    throw new InfrastructureError(
      `could not stage the sealed workspace in the grading container: ${
        result.timedOut
          ? `it ran past the deadline`
          : firstLine(result.stderr) || `exit ${result.exitCode}`
      }`,
    );
  }
  const output = `${result.stdout}${result.stderr}`;
  const passed = result.exitCode === 0 && !result.timedOut;
  const tests = passed && result.report !== undefined ? parseReport(result.report) : undefined;
  return {
    script,
    exitCode: result.exitCode,
    timedOut: result.timedOut,
    output: output.length > OUTPUT_TAIL ? `...${output.slice(-OUTPUT_TAIL)}` : output,
    ...(tests ? { tests } : {}),
  };
}

/** Waits for both scripts, so neither is left running; then the first failure, if any, throws. */
async function settleBoth<A, B>(first: Promise<A>, second: Promise<B>): Promise<[A, B]> {
  const [a, b] = await Promise.allSettled([first, second]);
  if (a.status === "rejected") throw a.reason;
  if (b.status === "rejected") throw b.reason;
  return [a.value, b.value];
}

/** What is wrong with a grading script of `tests/`: missing, or not executable. */
function missingOrNotExecutable(
  tests: readonly TreeEntry[],
  script: string,
): string | undefined {
  const entry = tests.find((candidate) => candidate.path === script);
  if (entry === undefined || entry.type !== "file") return `tests/${script} is missing`;
  if ((entry.mode & 0o111) === 0) return `tests/${script} is not executable (chmod +x it)`;
  return undefined;
}
