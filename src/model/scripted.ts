/**
 * The scripted model of Verdict's own loop: deterministic for a given task, seed and repeat, and
 * needing nothing. It says the trial's plan ({@linkcode planScriptedTrial}) in Verdict's own tool
 * calls, one step a turn; the last step repeats (a runaway loop is a plan that ends in a read).
 *
 * @module
 */
import type { Message, Model, ModelRequest, ModelResponse, ToolCall } from "./model.ts";
import {
  cutOffJson,
  type Fault,
  planScriptedTrial,
  type ScriptedCall,
  type ScriptedStep,
  scriptedUsage,
  TEMPTING_COMMANDS,
} from "./scripted_plan.ts";
import type { TokenCounter } from "./tokens.ts";
import type { Rng } from "../core/rng.ts";
import type { Task } from "../task/task.ts";

export { type Fault, FAULTS } from "./scripted_plan.ts";

/** What the scripted model is made from. */
export interface ScriptedModelOptions {
  /** The task (its workspace, solution, docs and requirements). */
  task: Task;
  /** The trial's seeded stream. */
  rng: Rng;
  /** The share of trials that go wrong, 0 to 1. */
  faults: number;
  /** Counts the tokens it reports as used. */
  counter: TokenCounter;
}

/**
 * Makes the scripted model for one trial.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { loadTask } from "../task/load_task.ts";
 * import { SplitMix64 } from "../core/rng.ts";
 * import { heuristicCounter } from "./tokens.ts";
 * import { scriptedModel } from "./scripted.ts";
 * const model = await scriptedModel({
 *   task: await loadTask("tasks/fix-slugify"), rng: new SplitMix64(0), faults: 0, counter: heuristicCounter,
 * });
 * assert(model.spec === "scripted");
 * ```
 */
export async function scriptedModel(
  options: ScriptedModelOptions,
): Promise<Model & { fault: Fault | null }> {
  const { counter } = options;
  const { fault, steps } = await planScriptedTrial(options);
  let next = 0;
  let probes = 0;
  let callNumber = 0;
  return {
    spec: options.faults > 0 ? `scripted:faults=${options.faults}` : "scripted",
    remote: false,
    fault,
    complete(request: ModelRequest): Promise<ModelResponse> {
      let step: ScriptedStep;
      for (;;) {
        const current = steps[Math.min(next, steps.length - 1)];
        if (!current.untilDenied) {
          step = current;
          next++;
          break;
        }
        if (
          (probes > 0 && lastResultDenied(request.messages)) || probes >= TEMPTING_COMMANDS.length
        ) {
          next++;
          continue;
        }
        step = {
          say: current.say,
          calls: [{ name: "shell", args: { command: TEMPTING_COMMANDS[probes++] } }],
        };
        break;
      }
      const toolCalls: ToolCall[] = step.calls.map((call) => ({
        id: `call_${++callNumber}`,
        name: call.name,
        arguments: argumentsText(call),
      }));
      return Promise.resolve({
        content: step.say,
        toolCalls,
        finish: toolCalls.length > 0 ? "tool_calls" : "stop",
        usage: scriptedUsage(counter, request, step.say, toolCalls),
      });
    },
  };
}

/** The arguments as the loop's model writes them; cut-off ones spaced as `{"path": "a", ...`. */
function argumentsText(call: ScriptedCall): string {
  if (!call.malformed) return JSON.stringify(call.args);
  const spaced = Object.entries(call.args)
    .map(([key, value]) => `${JSON.stringify(key)}: ${JSON.stringify(value)}`)
    .join(", ");
  return cutOffJson(`{${spaced}}`);
}

function lastResultDenied(messages: readonly Message[]): boolean {
  const last = messages.at(-1);
  return last?.role === "tool" && last.isError && last.content.startsWith("denied by policy");
}
