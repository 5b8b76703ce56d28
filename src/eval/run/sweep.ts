/**
 * A sweep (`verdict eval` with several `--agent` or `--model`): the same tasks, repeats and seed
 * for every agent and model, one run each. An agent that needs no model is given none, so it is
 * run once; a pair whose agent cannot speak the model's API is passed over, unless the agent has
 * no other (its build says why). Every agent is checked and built before the first run starts;
 * the runs go one after another, and an interrupt ends the sweep with the run it stopped.
 *
 * @module
 */
import type { Clock } from "../../core/clock.ts";
import { systemClock } from "../../core/system_clock.ts";
import { loadSuite, selectTasks, type Suite } from "../../task/load_suite.ts";
import type { Task } from "../../task/task.ts";
import { type AgentChoice, planAgents, type PlanHooks, type PlannedAgent } from "./run_agents.ts";
import type { EvalOutcome } from "./run_lifecycle.ts";
import { type EvalRequest, evalSuite, runDeps, type RunOptions, suiteRun } from "./run_eval.ts";

/**
 * A sweep: an eval of each agent with each model it takes.
 *
 * @example The oracle against `nop`
 * ```ts
 * import assert from "node:assert/strict";
 * import type { SweepRequest } from "./sweep.ts";
 * const request: SweepRequest = {
 *   paths: ["tasks/fix-slugify"],
 *   agents: ["oracle", "nop"],
 *   home: ".verdict",
 * };
 * assert.equal(request.agents.length, 2);
 * ```
 */
export interface SweepRequest extends Omit<EvalRequest, "agent" | "model"> {
  /** The agents, each a name of the registry or one of your own; one run each (per model). */
  agents: AgentChoice[];
  /** The models each agent a model drives is run with (default `scripted`). */
  models?: string[];
}

/**
 * How a sweep went: its runs, in order, and the pairs it passed over.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { SweepOutcome } from "./sweep.ts";
 * const none: SweepOutcome = { runs: [], passedOver: [] };
 * assert.equal(none.runs.some((run) => run.interrupted), false);
 * ```
 */
export interface SweepOutcome {
  /** Each run's outcome; the last one was interrupted when an interrupt ended the sweep. */
  runs: EvalOutcome[];
  /** The agents not run with a model, because each speaks another provider's API. */
  passedOver: PassedOver[];
}

/**
 * An agent a sweep did not run with a model.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { PassedOver } from "./sweep.ts";
 * const pass: PassedOver = { agent: "claude-code@2.0.0", model: "openai:gpt-5", speaks: "anthropic" };
 * assert.equal(pass.speaks, "anthropic");
 * ```
 */
export interface PassedOver {
  /** The agent. */
  agent: string;
  /** The model. */
  model: string;
  /** The one provider API the agent speaks. */
  speaks: string;
}

/**
 * Runs a sweep: one eval per agent and model, over the same tasks.
 *
 * @example `nop` and the oracle on an engine in memory: one run each
 * ```ts
 * import assert from "node:assert/strict";
 * import { MemorySandbox } from "../../engine/memory_sandbox.ts";
 * import { runSweep } from "./sweep.ts";
 * const home = await Deno.makeTempDir();
 * const { runs } = await runSweep(
 *   { paths: ["tasks/fix-slugify"], agents: ["nop", "oracle"], home },
 *   { sandbox: new MemorySandbox() },
 * );
 * assert.deepEqual(runs.map((run) => run.results.run.agent), ["nop", "oracle"]);
 * await Deno.remove(home, { recursive: true });
 * ```
 * @throws {UsageError} when an agent is unknown or cannot be built, models are given and no agent
 * takes one, or the oracle is asked to run a task with no solution (exit 2).
 * @throws {InfrastructureError} when no engine answers or an image is missing (exit 3).
 */
export async function runSweep(request: SweepRequest, options: RunOptions): Promise<SweepOutcome> {
  return runPlanned(await planSweep(request, options.clock ?? systemClock, {}), options, {});
}

/** A sweep whose tasks are loaded and whose agents are built, ready to run. */
export interface PlannedSweep {
  /** The request. */
  request: SweepRequest;
  /** The suite. */
  suite: Suite;
  /** The selected tasks. */
  tasks: Task[];
  /** Each run's agent, in order. */
  agents: PlannedAgent[];
  /** The pairs passed over. */
  passedOver: PassedOver[];
}

/**
 * Loads a sweep's tasks and builds its agents, telling `hooks` of each pair passed over as it is.
 *
 * @throws {UsageError} as {@linkcode runSweep} does.
 */
export async function planSweep(
  request: SweepRequest,
  clock: Clock,
  hooks: Omit<PlanHooks, "clock">,
): Promise<PlannedSweep> {
  const suite = await loadSuite(request.paths);
  const tasks = selectTasks(suite, request.tasks ?? []);
  const passedOver: PassedOver[] = [];
  const agents = await planAgents({ ...request, repeat: request.repeat ?? 1 }, tasks, {
    clock,
    onCrash: hooks.onCrash,
    passedOver: (agent, model, speaks) => {
      passedOver.push({ agent, model, speaks });
      hooks.passedOver?.(agent, model, speaks);
    },
  });
  return { request, suite, tasks, agents, passedOver };
}

/**
 * Runs a planned sweep's runs one after another; `runEnded` hears of each as it ends. An
 * interrupted run is the last.
 */
export async function runPlanned(
  planned: PlannedSweep,
  options: RunOptions,
  hooks: { runEnded?: (outcome: EvalOutcome) => void },
): Promise<SweepOutcome> {
  const { agents: _agents, models: _models, ...common } = planned.request;
  const runs: EvalOutcome[] = [];
  for (const agent of planned.agents) {
    const outcome = await evalSuite(
      suiteRun(common, planned.suite, planned.tasks, agent),
      runDeps(options),
    );
    hooks.runEnded?.(outcome);
    runs.push(outcome);
    if (outcome.interrupted) break;
  }
  return { runs, passedOver: planned.passedOver };
}
