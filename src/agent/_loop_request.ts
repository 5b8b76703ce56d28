/**
 * Before each model call: whether the loop may take another step (max_steps, the deadline), the
 * conversation fitted into the context budget (a compaction is recorded), and the call's output
 * cap within what the token and cost budgets have left.
 *
 * @module
 */
import { costOf, formatUsd, usd } from "../core/money.ts";
import type { ModelRequest } from "../model/model.ts";
import { utf8Length } from "../core/utf8_length.ts";
import { MIN_ANSWER_TOKENS } from "../gateway/budget.ts";
import { type BoundedInput, conversationInputBound } from "../gateway/input_bound.ts";
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
  return withinBudget(run, request);
}

/**
 * The request within the budgets, by the gateway's rule: its worst case (an upper bound of its
 * input, `input_bound.ts`, plus its output cap) must fit what is left, the cap lowered to what is
 * left when the whole does not fit; the loop stops on `budget` only when not even
 * {@linkcode MIN_ANSWER_TOKENS} fit.
 */
function withinBudget(run: LoopRun, request: ModelRequest): ModelRequest | Stop {
  const { limits } = run.task.manifest;
  const { counters, price } = run;
  const input = conversationInputBound(boundedInput(run, request), run.lastAnswered ?? null);
  const byTokens = limits.max_total_tokens - counters.totalTokens - input;
  let byCost = Number.MAX_SAFE_INTEGER;
  let inputCost = 0n;
  if (price && counters.costUsd !== null) {
    inputCost = costOf(input, price.input > price.cacheWrite ? price.input : price.cacheWrite);
    const left = usd(limits.max_cost_usd) - counters.costUsd - inputCost;
    if (left < 0n) byCost = -1;
    else if (price.output > 0n) {
      const afford = (left * 1_000_000n) / price.output;
      byCost = afford < BigInt(byCost) ? Number(afford) : byCost;
    }
  }
  const cap = Math.min(request.maxOutputTokens, byTokens, byCost);
  if (cap >= Math.min(request.maxOutputTokens, MIN_ANSWER_TOKENS)) {
    return cap < request.maxOutputTokens ? { ...request, maxOutputTokens: cap } : request;
  }
  return new Stop(
    "budget",
    byCost < byTokens
      ? `max_cost_usd ${limits.max_cost_usd} cannot afford another call ($${
        formatUsd(counters.costUsd ?? 0n)
      } spent, up to $${formatUsd(inputCost)} for its input of up to ${input} tokens)`
      : `max_total_tokens ${limits.max_total_tokens} cannot afford another call ` +
        `(${counters.totalTokens} tokens used, up to ${input} for its input and ` +
        `${MIN_ANSWER_TOKENS} for an answer)`,
  );
}

/**
 * A request as its input's bound sees it: the model, system prompt and tools frame it, and its
 * size is that of the three with its messages as JSON.
 *
 * @example
 * ```ts ignore
 * run.lastAnswered = { input: boundedInput(run, request), tokens: totalInput(response.usage) };
 * ```
 */
export function boundedInput(run: LoopRun, request: ModelRequest): BoundedInput {
  const { system, messages, tools } = request;
  return {
    frame: JSON.stringify([run.model.spec, system, tools]),
    messages,
    bytes: utf8Length(JSON.stringify({ system, messages, tools })),
  };
}
