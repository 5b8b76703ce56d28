/**
 * Positive evidence of a pass: what the grader's test runners reported (see `_evidence_hooks.ts`
 * and docs/tasks.md). A success script's exit 0 counts only with a report of at least one passed
 * test (at least `success.expect_tests` when the manifest sets it) and no failure or error; a
 * manifest with `expect_tests: 0` needs no report. Code under test can write the report too: the
 * evidence stops a script that ran nothing or ignored failures, never a forger (docs threat model).
 *
 * @module
 */

/**
 * The report file the runners append to (named by `VERDICT_TESTS_REPORT`): in the grader's image,
 * empty and the agent user's, in a folder of root's.
 */
export const TESTS_REPORT = "/verdict/evidence/tests";

/** What the runners reported, summed over every run of the script. */
export interface TestCounts {
  /** Tests that ran (passed, failed or errored; skipped ones are not counted). */
  ran: number;
  /** Tests that passed. */
  passed: number;
  /** Tests that failed. */
  failed: number;
  /** Tests that errored (setup, collection). */
  errors: number;
  /** Tests skipped. */
  skipped: number;
}

/** The largest report read: one past it counts as none. */
export const MAX_REPORT_BYTES = 1 << 20;
const LINE = /^verdict-tests((?:\s+[a-z_]+=\S*)+)\s*$/;

/**
 * Sums the report's `verdict-tests` lines; undefined when there is none. Other lines and unknown
 * keys are ignored; a count that is not a whole number counts as an error.
 */
export function parseReport(text: string): TestCounts | undefined {
  let counts: TestCounts | undefined;
  for (const line of text.split("\n")) {
    const match = LINE.exec(line.trim());
    if (!match) continue;
    counts ??= { ran: 0, passed: 0, failed: 0, errors: 0, skipped: 0 };
    const fields = Object.fromEntries(
      match[1].trim().split(/\s+/).map((field) => field.split("=", 2) as [string, string]),
    );
    for (const key of ["passed", "failed", "errors", "skipped"] as const) {
      const value = fields[key] ?? "0";
      if (/^\d{1,9}$/.test(value)) counts[key] += Number(value);
      else counts.errors += 1;
    }
  }
  if (counts) counts.ran = counts.passed + counts.failed + counts.errors;
  return counts;
}

/**
 * Why a script's exit 0 is not a pass, given the report; undefined when it is one.
 * `expect` is the manifest's `success.expect_tests`.
 */
export function evidenceProblem(
  counts: TestCounts | undefined,
  expect: number | undefined,
  script: string,
): string | undefined {
  if (counts && (counts.failed > 0 || counts.errors > 0)) {
    return `no evidence shows the tests ran without failing: the test runners reported ` +
      `${counts.failed} failed and ` +
      `${counts.errors} errors, although tests/${script} exited 0`;
  }
  if (expect === 0) return undefined;
  const fix = "(pytest, unittest and doctest report by themselves; another runner prints a " +
    "verdict-tests line, see docs/tasks.md)";
  if (!counts) {
    return `no evidence shows the tests ran: tests/${script} exited 0, but no test runner ` +
      `reported a result ${fix}`;
  }
  const needed = Math.max(expect ?? 1, 1);
  if (counts.passed < needed) {
    return `no evidence shows the tests ran: the test runners reported ${counts.passed} passed` +
      `${counts.skipped ? ` (${counts.skipped} skipped)` : ""}, ` +
      (expect === undefined ? `at least 1 is needed` : `success.expect_tests is ${expect}`);
  }
  return undefined;
}
