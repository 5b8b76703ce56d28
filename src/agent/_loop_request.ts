/**
 * Before each model call: whether the loop may take another step (max_steps, the deadline), the
 * conversation fitted into the context budget (a compaction is recorded), and whether the call
 * could pass the token or cost budget.
 *
 * @module
 */
import { costOf, formatUsd, usd } from "../core/money.ts";
import type { ModelRequest } from "../model/model.ts";
import { requestTokens } from "../model/tokens.ts";
import { EVENT, event } from "../store/event_catalogue.ts";
import { type LoopRun, Stop } from "./_loop_run.ts";
import { fitContext } from "./context.ts";

/**
 * Why the loop may not take step `step`: max_steps reached or the deadline passed.
 *
 * @example
 * ```ts ignore
 * const stop = limitReached(run, step);
 * ```
 */
export function limitReached(run: LoopRun, step: number): Stop | undefined {
  const { limits } = run.task.manifest;
  if (step > limits.max_steps) {
    return new Stop("max_steps", `reached max_steps ${limits.max_steps}`);
  }
  if (run.deadline.signal.aborted) {
    return new Stop("timeout", `reached timeout_s ${limits.timeout_s}`);
  }
  return undefined;
}

/**
 * The step's request: the conversation fitted into the context budget (the run keeps the fitted
 * messages), or why the loop stops (the prefix alone is too large, or the call could pass a
 * budget).
 *
 * @example
 * ```ts ignore
 * const request = nextRequest(run, step);
 * if (request instanceof Stop) return request;
 * ```
 */
export function nextRequest(run: LoopRun, step: number): ModelRequest | Stop {
  const { context } = run.task.manifest;
  const fitted = fitContext(run.system, run.messages, run.setup.schemas, {
    maxTokens: context.max_tokens,
    reserveOutputTokens: run.outputTokens,
    strategy: context.strategy,
  }, run.setup.options.counter);
  if (fitted.kind === "prefix_too_large") {
    return new Stop(
      "budget",
      `the system prompt, the task and the tool schemas need ${fitted.needed} tokens with the ` +
        `reserved output, more than context.max_tokens ${fitted.budget}`,
    );
  }
  if (fitted.compaction) {
    run.counters.compactions++;
    run.context.record([event(EVENT.contextCompacted, { step, ...fitted.compaction })]);
  }
  run.messages = fitted.messages;
  const { parameters } = run.setup.options;
  const request: ModelRequest = {
    system: run.system,
    messages: run.messages,
    tools: run.setup.schemas,
    maxOutputTokens: run.outputTokens,
    ...(parameters ? { parameters } : {}),
  };
  return overBudget(run, request) ?? request;
}

/** Why the request could pass the token or the cost budget, if it could. */
function overBudget(run: LoopRun, request: ModelRequest): Stop | undefined {
  const { limits } = run.task.manifest;
  const { counters, price } = run;
  const estimate = requestTokens(run.setup.options.counter, request) + request.maxOutputTokens;
  if (counters.totalTokens + estimate > limits.max_total_tokens) {
    return new Stop(
      "budget",
      `the next call could use ${estimate} tokens; with ${counters.totalTokens} used that passes ` +
        `max_total_tokens ${limits.max_total_tokens}`,
    );
  }
  if (price && counters.costUsd !== null) {
    const next = costOf(estimate - request.maxOutputTokens, price.input) +
      costOf(request.maxOutputTokens, price.output);
    if (counters.costUsd + next > usd(limits.max_cost_usd)) {
      return new Stop(
        "budget",
        `the next call could cost $${formatUsd(next)}; with $${formatUsd(counters.costUsd)} ` +
          `spent that passes max_cost_usd ${limits.max_cost_usd}`,
      );
    }
  }
  return undefined;
}
