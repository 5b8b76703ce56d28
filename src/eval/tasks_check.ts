/**
 * `verdict tasks check`: every manifest validates; per task the oracle passes, and the nop agent
 * (the untouched workspace) fails, with the success script itself failing, not just a
 * requirement. Requirements that only a model-driven run can meet are reported as such. A task
 * with no reference solution is left out of the oracle run and reported as a problem.
 *
 * @module
 */
import { noSolutionMessage, oracleAgent } from "../agent/oracle.ts";
import { nopAgent } from "../agent/nop.ts";
import type { TrialRecord } from "../store/trial_record.ts";
import type { Task } from "../task/task.ts";
import { type EvalDeps, type EvalRequest, runEval } from "./run_eval.ts";

/** One task's check. */
export interface TaskCheck {
  /** The task id. */
  task: string;
  /** The oracle trial. */
  oracle: TrialRecord | undefined;
  /** The nop trial. */
  nop: TrialRecord | undefined;
  /** Requirements the oracle could not meet because only a model can. */
  modelOnly: string[];
  /** Problems; empty when the task checks out. */
  problems: string[];
}

/** The outcome of a check. */
export interface TasksCheckOutcome {
  /** Per task. */
  tasks: TaskCheck[];
  /** The two runs made (oracle, nop). */
  runs: string[];
  /** Whether an interrupt stopped it. */
  interrupted: boolean;
  /** What stopped it: the interrupt signal's reason; undefined when it was not interrupted. */
  interruption?: unknown;
}

/**
 * Checks the tasks at `request.paths` with an oracle run and a nop run, both recorded in the
 * state directory.
 */
export async function checkTasks(
  request: Omit<EvalRequest, "agent" | "model" | "settings" | "repeat">,
  deps: Omit<EvalDeps, "agent" | "waiveModelOnly">,
): Promise<TasksCheckOutcome> {
  const base = { ...request, model: null, settings: null, repeat: 1 };
  const solved = request.tasks.filter((task) => task.hasSolution);
  const oracle = solved.length === 0 ? undefined : await runEval(
    { ...base, tasks: solved, agent: "oracle" },
    { ...deps, agent: oracleAgent, waiveModelOnly: true },
  );
  if (oracle?.interrupted) {
    return {
      tasks: [],
      runs: [oracle.run.id],
      interrupted: true,
      interruption: oracle.interruption,
    };
  }
  const nop = await runEval({ ...base, agent: "nop" }, { ...deps, agent: nopAgent });
  const byTask = (trials: TrialRecord[]) => new Map(trials.map((trial) => [trial.task, trial]));
  const oracleTrials = byTask(oracle?.results.trials ?? []);
  const nopTrials = byTask(nop.results.trials);
  return {
    tasks: [...request.tasks].sort((a, b) => a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
      .filter((task) => oracleTrials.has(task.id) || nopTrials.has(task.id) || !task.hasSolution)
      .map((task) => judge(task, oracleTrials.get(task.id), nopTrials.get(task.id))),
    runs: [...(oracle ? [oracle.run.id] : []), nop.run.id],
    interrupted: nop.interrupted,
    interruption: nop.interruption,
  };
}

function judge(task: Task, oracle?: TrialRecord, nop?: TrialRecord): TaskCheck {
  const problems: string[] = [];
  if (!task.hasSolution) problems.push(noSolutionMessage(task.dir));
  else if (oracle === undefined) problems.push("the oracle trial did not finish");
  else if (oracle.verdict !== "pass") problems.push(`the oracle fails: ${oracle.reason}`);
  if (nop === undefined) problems.push("the nop trial did not finish");
  else if (nop.verdict === "pass") {
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
  const modelOnly = (oracle?.requirements ?? [])
    .filter((requirement) => !requirement.passed && requirement.model_only)
    .map((requirement) => requirement.kind);
  return { task: task.id, oracle, nop, modelOnly, problems };
}
