/**
 * The shape of a trial's trajectory as `readTrajectory` (`trajectory.ts`) reads it from the event log:
 * its steps, each with what the model said and the tool calls it made (the policy's decision and
 * the result on each), how the agent stopped, the verdict, and what it changed in the workspace.
 *
 * @module
 */
import type { ModelResponse } from "../model/model.ts";
import type { EVENT, EventPayload } from "../store/event_catalogue.ts";
import type { TrialRecord } from "../store/trial_record.ts";

/** One tool call in a trajectory. */
export interface TrajectoryCall {
  /** The call's id. */
  id: string;
  /** The tool. */
  tool: string;
  /** Its arguments as the model wrote them. */
  arguments: string;
  /** The shell command an installed agent's tool ran for it, from the agent's transcript. */
  command?: string;
  /** The policy's decision, when the call got that far. */
  decision?: { allowed: boolean; rule: number | null; reason: string };
  /** The result. */
  result?: {
    content: string;
    is_error: boolean;
    cached?: boolean;
    outcome_unknown?: boolean;
    /** The exit code an installed agent reported for its command. */
    exit_code?: number;
  };
  /** An installed agent's own tool: run by the agent, outside Verdict's policy and record. */
  by_agent?: true;
}

/** One step. */
export interface TrajectoryStep {
  /** The step number. */
  step: number;
  /** What the model said. */
  content: string;
  /** Tokens of the call. */
  usage: ModelResponse["usage"];
  /** Its cost, when known. */
  cost_usd: string | null;
  /** Its tool calls. */
  calls: TrajectoryCall[];
  /** A compaction before this step, if any. */
  compaction?: Omit<EventPayload<typeof EVENT.contextCompacted>, "step">;
}

/** A changed path of the workspace. */
export interface TrajectoryChange {
  /** The path. */
  path: string;
  /** Added, removed or modified. */
  change: string;
  /** What changed about it. */
  aspects?: string[];
  /** A unified diff, for text files. */
  diff?: string;
}

/** What grading saw, as the trial's result records it. */
export type TrajectoryGrading = Pick<
  TrialRecord,
  "checks" | "requirements" | "success" | "canary" | "reward"
>;

/** A trial's trajectory. */
export interface Trajectory {
  /** The session. */
  session: string;
  /** Its task. */
  task: string;
  /** Its repeat. */
  repeat: number;
  /** The first user message (the task's instruction), when the agent used a model. */
  instruction: string | null;
  /** Steps. */
  steps: TrajectoryStep[];
  /** How the agent stopped. */
  stop: { reason: string; detail: string | null } | null;
  /** The verdict. */
  verdict: { verdict: string; bucket: string; reason: string } | null;
  /**
   * What grading saw: the checks and requirements, and the success and canary scripts' runs with
   * the end of their output; null before grading (or when the trial never got there).
   */
  grading: TrajectoryGrading | null;
  /**
   * An installed agent's command and what it printed (head and tail when long); absent for the
   * loop, oracle and nop.
   */
  agentRun?: {
    command: string;
    exit_code: number;
    timed_out: boolean;
    stdout: string;
    stderr: string;
  };
  /** Whether the trial was resumed. */
  resumed: boolean;
  /** The Docker engine it ran on (last), when its run was given several (`--engine`). */
  engine?: string;
  /** Each time its engine was lost under it: from which, to which, and why it stopped there. */
  moves?: { from: string; to: string; reason: string }[];
  /** The workspace changes. */
  changes: TrajectoryChange[];
  /**
   * For an installed agent: what its clock was set to (null: the container's own) and the named
   * masks a replay of its model calls applies; absent for other agents and older records.
   */
  replay?: { clockStart: string | null; masks: string[] };
}
