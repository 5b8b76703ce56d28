/**
 * Grading, in the order SPEC section 3 fixes: the checks run against the sealed snapshots; then a
 * fresh container gets the sealed workspace and `tests/` at `/verdict/tests`, and the success
 * script's exit code decides, with the canary (which must fail) guarding the test machinery; then
 * the requirements. Pass = script exit 0 AND every check AND every requirement.
 *
 * @module
 */
import { join } from "node:path";
import { shellQuote } from "../core/shell_quote.ts";
import { AGENT_USER, type Container } from "../sandbox/container.ts";
import { type Snapshot, snapshotTarEntries } from "../sandbox/snapshot.ts";
import { packOwnedTar } from "../sandbox/tar.ts";
import type { BlobStore } from "../store/blob_store.ts";
import { readTree } from "../task/file_tree.ts";
import type { Task } from "../task/task.ts";
import { type CheckResult, runChecks } from "./checks.ts";
import { checkRequirements, type RequirementResult, type RunCounters } from "./requirements.ts";

/** Where `tests/` is staged in the grading container. */
export const TESTS_PATH = "/verdict/tests";

/** The failure buckets of SPEC section 6, and `pass`. */
export type Bucket = "pass" | "agent_failure" | "evaluator_error" | "infrastructure_error";

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
}

/** A trial's grade. */
export interface Grade {
  /** Pass or fail. */
  verdict: "pass" | "fail";
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
  /** A fresh container from the task image, started as root (commands still run unprivileged). */
  grader: Container;
  /** Requirements only a model-driven run can meet are reported but do not fail the grade. */
  waiveModelOnly?: boolean;
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
  const requirements = checkRequirements(task.manifest.requires, input.counters);
  const tests = await readTree(join(task.dir, "tests"));
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

  const workdir = task.manifest.workdir.replace(/^\/+/, "");
  const tar = packOwnedTar([
    { entries: snapshotTarEntries(blobs, input.final, workdir), options: { uid: 1000, gid: 1000 } },
    {
      entries: [
        { path: TESTS_PATH.slice(1), type: "dir", mode: 0o755 },
        ...tests.map((entry) => ({ ...entry, path: `${TESTS_PATH.slice(1)}/${entry.path}` })),
      ],
      options: { uid: 0, gid: 0 },
    },
  ]);
  await input.grader.copyIn(tar, "/");

  const timeoutMs = task.manifest.success.timeout_s * 1000;
  const success = await runScript(
    input.grader,
    task.manifest.success.script,
    timeoutMs,
    input.signal,
  );
  const canary = canaryName
    ? await runScript(input.grader, canaryName, timeoutMs, input.signal)
    : null;
  return {
    ...base,
    success,
    canary,
    ...decide(success, canary, checks, requirements, input.waiveModelOnly),
  };
}

function decide(
  success: ScriptRun,
  canary: ScriptRun | null,
  checks: CheckResult[],
  requirements: RequirementResult[],
  waiveModelOnly = false,
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
  const failedCheck = checks.find((check) => !check.passed);
  if (failedCheck) return fail(`check ${failedCheck.kind} failed: ${failedCheck.detail}`);
  const unmet = requirements.find((result) =>
    !result.passed && !(waiveModelOnly && result.modelOnly)
  );
  if (unmet) return fail(`requirement not met: ${unmet.detail}`);
  return { verdict: "pass", bucket: "pass", reason: "tests passed" };
}

async function runScript(
  grader: Container,
  script: string,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<ScriptRun> {
  const result = await grader.exec(shellQuote(`${TESTS_PATH}/${script}`), {
    user: AGENT_USER,
    timeoutMs,
    signal,
  });
  if (result.aborted) throw signal?.reason ?? new Error("grading aborted");
  const output = `${result.stdout}${result.stderr}`;
  return {
    script,
    exitCode: result.exitCode,
    timedOut: result.timedOut,
    output: output.length > OUTPUT_TAIL ? `...${output.slice(-OUTPUT_TAIL)}` : output,
  };
}

function missingOrNotExecutable(
  tests: Awaited<ReturnType<typeof readTree>>,
  script: string,
): string | undefined {
  const entry = tests.find((candidate) => candidate.path === script);
  if (entry === undefined || entry.type !== "file") return `tests/${script} is missing`;
  if ((entry.mode & 0o111) === 0) return `tests/${script} is not executable (chmod +x it)`;
  return undefined;
}
