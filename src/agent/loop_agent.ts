/**
 * The loop agent: per step, fit the context, check the budgets, call the model, record its
 * answer, run each tool call through the policy and the sandbox, record each result (a
 * checkpoint). It stops with `completed`, `max_steps`, `timeout`, `budget`, `refused`,
 * `truncated` (an answer cut at its output limit with no tool call) or `error`;
 * the task's `timeout_s` is a hard deadline that aborts a model call or a tool command still
 * running.
 *
 * The loop reads no clock and draws no random number of its own: what it does is a function of
 * the task, the model's answers and the tools' results, which is what lets a session be resumed
 * and replayed from its record.
 *
 * The steps, each in a file of its own: start and stop a run (`_loop_run.ts`), check the limits
 * and fit the request (`_loop_request.ts`), ask the model (`_loop_model.ts`), judge and run a
 * tool call (`_loop_tool_call.ts`), and one step made of these (`_loop_step.ts`).
 *
 * @module
 */
import type { Agent } from "./agent.ts";
import type { LoopAgentOptions } from "./loop_options.ts";
import { loopSetup, startLoop, stopLoop } from "./_loop_run.ts";
import { takeStep } from "./_loop_step.ts";

export type { LoopAgentOptions, PendingCall, RecordedResult } from "./loop_options.ts";

/**
 * The built-in agent loop.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { loopAgent } from "./loop_agent.ts";
 * import { DEFAULT_POLICY } from "../policy/default_policy.ts";
 * import { heuristicCounter } from "../model/tokens.ts";
 * const agent = loopAgent({
 *   createModel: () => Promise.reject(new Error("no model in this example")),
 *   policyFor: () => DEFAULT_POLICY,
 *   priceFor: () => null,
 *   counter: heuristicCounter,
 * });
 * assert(agent.name === "loop");
 * ```
 */
export function loopAgent(options: LoopAgentOptions): Agent {
  const setup = loopSetup(options);
  return {
    name: "loop",
    async run(context) {
      const run = await startLoop(setup, context);
      try {
        for (let step = 1;; step++) {
          const stop = await takeStep(run, step);
          if (stop) return stopLoop(run, stop);
        }
      } finally {
        run.deadline.dispose();
      }
    },
  };
}
