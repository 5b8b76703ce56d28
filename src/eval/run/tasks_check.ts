/**
 * `verdict tasks check`: every manifest validates; per task the oracle passes, the nop agent
 * (the untouched workspace) fails, with the success script itself failing, not just a
 * requirement, and the canary fails on the untouched workspace; and no control agent (a generic
 * cheat, `control_agents.ts`) passes. Requirements that only a model-driven run can meet are
 * reported as such, and waived for the oracle and the controls. A task with no reference
 * solution is left out of the oracle run and reported as a problem.
 *
 * Each agent's trials are a run of their own, recorded in the state directory; the runs go at
 * the same time, sharing `concurrency` between them.
 *
 * @module
 */
import type { Agent } from "../../agent/agent.ts";
import {
  type Control,
  controlAgent,
  controlApplies,
  CONTROLS,
} from "../../agent/control_agents.ts";
import { oracleAgent } from "../../agent/oracle.ts";
import { nopAgent } from "../../agent/nop.ts";
import type { TrialRecord } from "../../store/trial_record.ts";
import type { Task } from "../../task/task.ts";
import { readyHarborImages } from "../setup/harbor_images.ts";
import { checkProblems } from "./_check_problems.ts";
import type { EvalOutcome, Progress } from "./run_lifecycle.ts";
import { recordedAgentKind } from "../setup/agent_registry.ts";
import { evalSuite, type SuiteRun, type SuiteRunDeps } from "./run_eval.ts";

/** One control's trial of a task. */
export interface ControlTrial {
  /** The control's name (`exit-at-import`). */
  control: string;
  /** Its trial. */
  trial: TrialRecord;
}

/** One task's check. */
export interface TaskCheck {
  /** The task id. */
  task: string;
  /** The oracle trial. */
  oracle: TrialRecord | undefined;
  /** The nop trial. */
  nop: TrialRecord | undefined;
  /** The controls' trials, for the controls that had anything to cheat with on this task. */
  controls: ControlTrial[];
  /** Requirements the oracle could not meet because only a model can. */
  modelOnly: string[];
  /** Problems; empty when the task checks out. */
  problems: string[];
}

/** The outcome of a check. */
export interface TasksCheckOutcome {
  /** Per task. */
  tasks: TaskCheck[];
  /** The oracle's and the nop agent's runs, in that order (the oracle's absent with no solution). */
  runs: string[];
  /** The controls' runs, by control name. */
  controlRuns: Record<string, string>;
  /** Whether an interrupt stopped it. */
  interrupted: boolean;
  /** What stopped it: the interrupt signal's reason; undefined when it was not interrupted. */
  interruption?: unknown;
}

/** The progress of a check's runs, which go at the same time: each call names the run's agent. */
export interface CheckProgress {
  /** A run started, with this many trials. */
  runStarted(agent: string, run: string, trials: number): void;
  /** One of its trials got its verdict. */
  trialFinished(agent: string, trial: TrialRecord): void;
}

/** What a check needs from its caller. */
export type CheckDeps = Omit<SuiteRunDeps, "waiveModelOnly" | "progress"> & {
  /** Progress display. */
  progress: CheckProgress;
};

/** One of the check's runs: an agent and the tasks it gets. */
interface PlannedRun {
  agent: Agent;
  tasks: Task[];
  control?: Control;
}

/**
 * Checks the tasks at `request.paths` with an oracle run, a nop run and a run per control, all
 * recorded in the state directory.
 */
export async function checkTasks(
  request: Omit<SuiteRun, "agent" | "repeat">,
  deps: CheckDeps,
): Promise<TasksCheckOutcome> {
  // Harbor images are readied once, before the runs that would each build them at the same time.
  await deps.sandbox.ping(deps.signal);
  await readyHarborImages(request.tasks, deps.sandbox, deps.signal);
  const planned = await planRuns(request.tasks);
  const share = Math.max(1, Math.ceil(request.concurrency / planned.length));
  const outcomes = await startRuns(planned, { ...request, repeat: 1, concurrency: share }, deps);
  const of = (agent: Agent) => {
    const index = planned.findIndex((run) => run.agent === agent);
    return index < 0 ? undefined : outcomes.at(index);
  };
  const oracle = of(oracleAgent);
  const nop = of(nopAgent);
  const controls = planned.flatMap((run, index) => {
    const outcome = outcomes.at(index);
    return run.control && outcome ? [{ control: run.control, outcome }] : [];
  });
  const interrupted = outcomes.find((outcome) => outcome.interrupted);
  const runs = [oracle, nop].flatMap((outcome) => outcome ? [outcome.run.id] : []);
  const controlRuns = Object.fromEntries(
    controls.map(({ control, outcome }) => [control.name, outcome.run.id]),
  );
  if (interrupted || nop === undefined) {
    return {
      tasks: [],
      runs,
      controlRuns,
      interrupted: true,
      interruption: interrupted?.interruption ?? deps.signal.reason,
    };
  }
  return {
    tasks: taskChecks(request.tasks, oracle?.results.trials ?? [], nop.results.trials, controls),
    runs,
    controlRuns,
    interrupted: false,
  };
}

// Each run starts once the one before it is recorded (the oracle's run is named first), then
// they go at the same time; none starts after one fails or the check is interrupted.
async function startRuns(
  planned: readonly PlannedRun[],
  base: Omit<SuiteRun, "agent">,
  deps: CheckDeps,
): Promise<EvalOutcome[]> {
  const running: Promise<EvalOutcome>[] = [];
  let failed = false;
  for (const run of planned) {
    const { promise: started, resolve } = Promise.withResolvers<void>();
    const agent = {
      agent: run.agent,
      model: null,
      settings: null,
      needs: recordedAgentKind(run.agent.name, false)!.needs,
    };
    const outcome = evalSuite(
      { ...base, tasks: run.tasks, agent },
      {
        ...deps,
        waiveModelOnly: run.agent !== nopAgent,
        progress: runProgress(deps.progress, run.agent.name, resolve),
      },
    );
    outcome.catch(() => failed = true).finally(resolve); // its failure is thrown below
    running.push(outcome);
    await started;
    if (failed || deps.signal.aborted) break;
  }
  return await Promise.all(running);
}

// Each task's check, in task order, from the runs' trials.
function taskChecks(
  tasks: readonly Task[],
  oracleTrials: TrialRecord[],
  nopTrials: TrialRecord[],
  controls: readonly { control: Control; outcome: EvalOutcome }[],
): TaskCheck[] {
  const byTask = (trials: TrialRecord[]) => new Map(trials.map((trial) => [trial.task, trial]));
  const oracle = byTask(oracleTrials);
  const nop = byTask(nopTrials);
  const ofControls = controls.map(({ control, outcome }) => ({
    control,
    trials: byTask(outcome.results.trials),
  }));
  return [...tasks].sort((a, b) => a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
    .filter((task) => oracle.has(task.id) || nop.has(task.id) || !task.hasSolution)
    .map((task) => {
      const ran = ofControls.flatMap(({ control, trials }) => {
        const trial = trials.get(task.id);
        return trial ? [{ control, trial }] : [];
      });
      const modelOnly = (oracle.get(task.id)?.requirements ?? [])
        .filter((requirement) => !requirement.passed && requirement.model_only)
        .map((requirement) => requirement.kind);
      return {
        task: task.id,
        oracle: oracle.get(task.id),
        nop: nop.get(task.id),
        controls: ran.map(({ control, trial }) => ({ control: control.name, trial })),
        modelOnly,
        problems: checkProblems(task, oracle.get(task.id), nop.get(task.id), ran),
      };
    });
}

// The oracle's run (the tasks with a solution), the nop agent's (every task), and each control's
// (the tasks it has anything to cheat with); none with no task.
async function planRuns(tasks: readonly Task[]): Promise<PlannedRun[]> {
  const controls = await Promise.all(CONTROLS.map(async (control) => ({
    agent: controlAgent(control),
    control,
    tasks: (await Promise.all(tasks.map((task) => controlApplies(control, task))))
      .flatMap((applies, index) => applies ? [tasks[index]] : []),
  })));
  return [
    { agent: oracleAgent, tasks: tasks.filter((task) => task.hasSolution) },
    { agent: nopAgent, tasks: [...tasks] },
    ...controls,
  ].filter((run) => run.tasks.length > 0 || run.agent === nopAgent);
}

function runProgress(progress: CheckProgress, agent: string, started: () => void): Progress {
  return {
    runStarted: (run, _config, trials) => {
      progress.runStarted(agent, run.id, trials);
      started();
    },
    trialFinished: (trial) => progress.trialFinished(agent, trial),
  };
}
