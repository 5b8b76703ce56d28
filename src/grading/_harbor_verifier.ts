/**
 * Running a Harbor task's verifier (step 3 of `harbor_grade.ts`) and reading how its shell said it
 * ended.
 *
 * @module
 */
import { shellQuote } from "../core/shell_quote.ts";
import type { ExecResult } from "../engine/sandbox.ts";
import { GRADER_ENV } from "./grader_image.ts";
import { HARBOR_TESTS, type HarborGradeInput, TRUSTED_BIN, verifierUser } from "./harbor_grader.ts";

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

/**
 * Runs the task's `tests/test.sh` as the verifier, in the image's `WORKDIR`, under
 * `[verifier].timeout_sec`, with {@linkcode GRADER_ENV} and `[verifier].env`.
 *
 * @example
 * ```ts ignore
 * const result = await runVerifier(input, script.data);
 * ```
 */
export function runVerifier(input: HarborGradeInput, script: Uint8Array): Promise<ExecResult> {
  const { harbor } = input;
  return input.grader.exec(RUN_VERIFIER, {
    user: verifierUser(harbor),
    workdir: input.workdir,
    env: { ...GRADER_ENV, ...harbor.verifier.env },
    timeoutMs: harbor.verifier.timeoutSec * 1000,
    stdin: script,
    signal: input.signal,
  });
}

/** How the verifier's shell said it ended (the mark line; it only describes). */
export interface EndReport {
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
 * import { splitEndReport } from "./_harbor_verifier.ts";
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

/**
 * Why the way the verifier's shell ended does not let its reward count, or null when it ended by
 * itself and left nothing running. The exit code is the engine's word; the report only names.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { endProblem } from "./_harbor_verifier.ts";
 * assert.equal(endProblem(0, null), null);
 * assert.match(endProblem(4, { status: 0, left: 1, names: ["sleep"] })!, /left 1 process running/);
 * ```
 */
export function endProblem(exitCode: number, end: EndReport | null): string | null {
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
