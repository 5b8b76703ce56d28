/**
 * Asking the model: the request is recorded, the call runs under the run's signal, and its
 * answer is counted (tokens, cost, steps) and recorded. The crash knob fires before the call and
 * after the answer is recorded.
 *
 * @module
 */
import { boundedInput } from "./_loop_request.ts";
import { formatUsd, type Usd } from "../core/money.ts";
import { type ModelRequest, type ModelResponse, totalInput } from "../model/model.ts";
import { costOfUsage } from "../model/prices.ts";
import { EVENT, event } from "../store/event_catalogue.ts";
import { crashAt, failedCall, type LoopRun, type Stop } from "./_loop_run.ts";

/**
 * Sends the step's request to the model and records its answer, or says why the loop stops
 * (the deadline passed during the call).
 *
 * @example
 * ```ts ignore
 * const response = await askModel(run, step, request);
 * if (response instanceof Stop) return response;
 * ```
 */
export async function askModel(
  run: LoopRun,
  step: number,
  request: ModelRequest,
): Promise<ModelResponse | Stop> {
  run.context.record([event(EVENT.modelRequest, { step, ...run.requests.record(request) })]);
  await crashAt(run, "before-model", step);
  let response: ModelResponse;
  try {
    response = await run.model.complete(request, { signal: run.signal });
  } catch (error) {
    return failedCall(run, error, "the model call");
  }
  const cost = countUsage(run, step, response);
  run.lastAnswered = { input: boundedInput(run, request), tokens: totalInput(response.usage) };
  run.context.record([
    event(EVENT.modelResponse, {
      step,
      response,
      cost_usd: cost === null ? null : formatUsd(cost, 12),
    }),
  ]);
  await crashAt(run, "after-response", step);
  return response;
}

/** Adds an answer's tokens and cost to the run's counts; returns its cost (null if unknown). */
function countUsage(run: LoopRun, step: number, response: ModelResponse): Usd | null {
  const { counters, tokens, price } = run;
  const cost = price ? costOfUsage(price, response.usage) : null;
  tokens.input += totalInput(response.usage);
  tokens.output += response.usage.output;
  counters.totalTokens = tokens.input + tokens.output;
  if (cost !== null && counters.costUsd !== null) counters.costUsd += cost;
  counters.steps = step;
  return cost;
}
