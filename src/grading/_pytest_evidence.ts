// What a Harbor verifier's own output says pytest did: the summary line pytest prints last
// (`==== 2 failed, 1 passed in 0.12s ====`, or `1 passed in 0.01s` with -q), read so that a
// passing reward has positive evidence behind it. Code under test runs inside pytest and can
// print a summary of its own: what this reads is evidence against cheap cheats (an exit code
// forced to 0, a process killed before its summary), not proof.

/** What the summary lines of one verifier's output add up to. */
export interface PytestEvidence {
  /** How many summary lines were found (one per pytest session that reached its end). */
  sessions: number;
  /** Tests passed, over every session. */
  passed: number;
  /** Tests failed or in error, over every session. */
  failed: number;
}

const COUNT = /(\d+) (passed|failed|errors?|skipped|xfailed|xpassed|deselected|warnings?|rerun)/g;
// A summary line: counts, then ` in 1.23s` (pytest 6+ may add ` (0:00:01)`), or "no tests ran".
const SUMMARY =
  /^=*\s*(?:(?:\d+ (?:passed|failed|errors?|skipped|xfailed|xpassed|deselected|warnings?|rerun)(?:, )?)+|no tests ran) in \d+(?:\.\d+)?s\b.*$/;
// Colours, when the task asked pytest for them (`--color=yes`).
// deno-lint-ignore no-control-regex
const ANSI = /\x1b\[[0-9;]*m/g;

/**
 * Reads pytest's summary lines out of a verifier's output.
 *
 * @example
 * ```ts ignore
 * const evidence = pytestEvidence("..F\n==== 1 failed, 2 passed in 0.10s ====\n");
 * // { sessions: 1, passed: 2, failed: 1 }
 * ```
 */
export function pytestEvidence(output: string): PytestEvidence {
  const evidence = { sessions: 0, passed: 0, failed: 0 };
  for (const raw of output.split(/\r?\n/)) {
    const line = raw.replace(ANSI, "").trim();
    if (!SUMMARY.test(line)) continue;
    evidence.sessions += 1;
    for (const [, count, word] of line.matchAll(COUNT)) {
      if (word === "passed") evidence.passed += Number(count);
      if (word === "failed" || word.startsWith("error")) evidence.failed += Number(count);
    }
  }
  return evidence;
}

/**
 * Whether a verifier script runs pytest: a line, not a comment, naming `pytest` or `py.test`.
 *
 * @example
 * ```ts ignore
 * runsPytest("cd /app\npython3 -m pytest -q /tests\n"); // true
 * runsPytest("# no pytest here\ngrep -q ok out.txt\n"); // false
 * ```
 */
export function runsPytest(script: string): boolean {
  return script.split(/\r?\n/).some((line) =>
    /(^|[^\w.-])(pytest|py\.test)\b/.test(line.replace(/(^|\s)#.*$/, ""))
  );
}

/**
 * Why a reward that reaches the pass mark is not backed by what pytest said, or null when it is
 * (or when the verifier does not run pytest). `full` says whether the reward is full marks: a
 * partial reward may come from a suite with failures.
 *
 * @example
 * ```ts ignore
 * missingEvidence("pytest /tests\n", "2 failed in 0.1s\n", true); // "pytest reported 2 failed ..."
 * ```
 */
export function missingEvidence(script: string, output: string, full: boolean): string | null {
  if (!runsPytest(script)) return null;
  const { sessions, passed, failed } = pytestEvidence(output);
  if (sessions === 0) {
    return "the verifier runs pytest, but its output has no pytest summary line: no evidence " +
      "shows the tests ran (pytest was stopped before its end, or its output hidden)";
  }
  if (full && failed > 0) {
    return `pytest reported ${failed} failed or in error in the verifier's own output`;
  }
  if (passed === 0) return "pytest reported no test passed: no evidence shows the tests ran";
  return null;
}
