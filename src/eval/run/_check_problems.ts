/**
 * What `tasks check` holds against one task, from its oracle, nop and control trials: each
 * problem in words, naming what failed and how to fix the task.
 *
 * @module
 */
import type { Control } from "../../agent/control_agents.ts";
import { noSolutionMessage } from "../../agent/oracle.ts";
import type { TrialRecord } from "../../store/trial_record.ts";
import type { Task } from "../../task/task.ts";

/**
 * The problems of one task's check; empty when it checks out.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { checkProblems } from "./_check_problems.ts";
 * import { CONTROLS } from "../../agent/control_agents.ts";
 * import { loadSuite } from "../../task/load_suite.ts";
 * const [task] = (await loadSuite(["tasks/fix-slugify"])).tasks;
 * const trial = { verdict: "pass", bucket: "pass", reason: "tests passed", success: null, canary: null };
 * const problems = checkProblems(task, trial as never, undefined, [
 *   { control: CONTROLS[0], trial: trial as never },
 * ]);
 * assert.equal(problems[0], "the nop trial did not finish");
 * assert.match(problems[1], /^control exit-at-import passed: the success script passes when every/);
 * ```
 */
export function checkProblems(
  task: Task,
  oracle: TrialRecord | undefined,
  nop: TrialRecord | undefined,
  controls: readonly { control: Control; trial: TrialRecord }[],
): string[] {
  const problems: string[] = [];
  if (!task.hasSolution) problems.push(noSolutionMessage(task.dir));
  else if (oracle === undefined) problems.push("the oracle trial did not finish");
  else if (oracle.verdict !== "pass") problems.push(`the oracle fails: ${oracle.reason}`);
  problems.push(...nopProblems(task, nop));
  for (const { control, trial } of controls) {
    if (trial.verdict === "pass") {
      problems.push(
        `control ${control.name} passed: the success script passes when ${control.cheat}; ` +
          `fix: ${task.harbor ? control.harborFix : control.fix}`,
      );
    } else if (trial.bucket === "infrastructure_error") {
      problems.push(`the control ${control.name} could not be graded: ${trial.reason}`);
    }
  }
  return problems;
}

function nopProblems(task: Task, nop: TrialRecord | undefined): string[] {
  if (nop === undefined) return ["the nop trial did not finish"];
  const problems: string[] = [];
  const canary = nop.canary;
  if (canary && canary.exit_code === 0 && !canary.timed_out) {
    problems.push(
      `the canary tests/${canary.script} passes on the untouched workspace, so every trial ` +
        `fails as tampering: make it assert something false (through the same test runner and ` +
        `imports as ${task.manifest.success.script}), so that only subverted test machinery ` +
        `passes it`,
    );
  }
  if (nop.verdict === "pass") {
    problems.push("the untouched workspace passes: the tests test nothing");
  } else if (nop.bucket !== "agent_failure") {
    problems.push(`the nop trial could not be graded: ${nop.reason}`);
  } else if (
    !task.harbor && nop.success && nop.success.exit_code === 0 && !nop.success.timed_out
  ) {
    // (A Harbor verifier exits 0 either way: its reward, below 1 here, is the verdict.)
    problems.push(
      `the success script passes on the untouched workspace (nop fails only because ${nop.reason})`,
    );
  }
  return problems;
}
