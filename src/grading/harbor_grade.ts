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
 *    environment, `[verifier].env` and `GRADER_ENV`; once it ends, that shell freezes
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
import type { SnapshotEntry } from "../workspace/snapshot.ts";
import type { Grade } from "./grade.ts";
import { isBytecodeCache } from "./grader_image.ts";
import { type HarborGradeInput, heldBack } from "./harbor_grader.ts";
import { missingEvidence, runsPytest } from "./_pytest_evidence.ts";
import { parseReward, rewardWritten } from "./_harbor_reward.ts";
import { stageSealedChanges } from "./_harbor_staging.ts";
import { endProblem, runVerifier, splitEndReport } from "./_harbor_verifier.ts";
import { findHijacks } from "./hijack_paths.ts";

export {
  HARBOR_TESTS,
  HARBOR_VERIFIER_LOGS,
  type HarborGradeInput,
  harborGraderTar,
  TRUSTED_BIN,
  WORKDIR_PTH,
} from "./harbor_grader.ts";
export { parseReward } from "./_harbor_reward.ts";
export { splitEndReport } from "./_harbor_verifier.ts";

const OUTPUT_TAIL = 4000;

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
  await stageSealedChanges(input, entries);
  const script = input.tests.find((entry) => entry.path === "test.sh");
  if (script?.type !== "file") {
    throw new InfrastructureError("the Harbor task's tests/test.sh was not staged for grading");
  }
  const result = await runVerifier(input, script.data);
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

/**
 * The tampering grade for sealed changes at grader-hijack paths (the task's allowed ones aside),
 * or null when there are none.
 */
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
