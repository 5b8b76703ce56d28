/**
 * Budgets enforced at the gateway, so that no client can pass them: each call reserves the most
 * it could use before it goes out (its input's upper bound plus an output cap lowered to what is
 * left), so calls made at once cannot overrun a budget together; a call that cannot fit even a
 * short answer is refused with an error in its wire format, and the ledger records `budget` as the
 * trial's stop reason. `max_total_tokens`, `max_cost_usd` (when priced) and a cap on model calls.
 *
 * @module
 */
import { costOf, formatUsd, type Usd, usd } from "../core/money.ts";
import { utf8Length } from "../core/utf8_length.ts";
import type { GatewayAnswer, GatewayBackend, GatewayCall } from "./gateway.ts";
import { MalformedResponse } from "../model/model_errors.ts";
import type { Usage } from "../model/model.ts";
import {
  type AnsweredInput,
  answeredInput,
  CONTINUATION_MARGIN,
  inputBound,
} from "./input_bound.ts";
import { requestedOutputCap } from "./_output_cap.ts";
import { WIRE_CODECS } from "./handler.ts";
import type { GatewayLedger } from "./ledger.ts";

/** What a trial's agent may spend through its gateway. */
export interface GatewayBudget {
  /** Most tokens, input and output together (`limits.max_total_tokens`). */
  maxTotalTokens: number;
  /** Most dollars (`limits.max_cost_usd`); enforced only when calls are priced. */
  maxCostUsd: Usd;
  /** Most model calls answered. */
  maxCalls: number;
}

/** The HTTP status of a refusal: 400, which no official SDK retries (a 429 would be retried). */
export const BUDGET_REFUSAL_STATUS = 400;

/**
 * The budget of a task's limits. The cap on model calls defaults to `limits.max_steps`: a model
 * call is one turn of an agent, as a step is one turn of the loop.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { gatewayBudget } from "./budget.ts";
 * import { usd } from "../core/money.ts";
 * const budget = gatewayBudget({ max_steps: 30, max_total_tokens: 1000, max_cost_usd: 0.5 });
 * assert.equal(budget.maxCalls, 30);
 * assert.equal(budget.maxCostUsd, usd("0.5"));
 * ```
 */
export function gatewayBudget(
  limits: { max_steps: number; max_total_tokens: number; max_cost_usd: number },
  maxCalls: number = limits.max_steps,
): GatewayBudget {
  return {
    maxTotalTokens: limits.max_total_tokens,
    maxCostUsd: usd(limits.max_cost_usd),
    maxCalls,
  };
}

/**
 * The fewest output tokens a call is let through with: a budget that cannot afford that many
 * after the call's input refuses the call instead of cutting an answer to nothing.
 */
export const MIN_ANSWER_TOKENS = 128;

/**
 * The output cap reserved for a call that asks for none (Chat Completions and Responses let a
 * client leave it to the provider): Claude Code's own default, so that one uncapped call cannot
 * hold a whole budget. It is sent upstream only when the budget affords less; a model allowed a
 * longer answer by default could pass it (a gap the decision records).
 */
export const UNASKED_OUTPUT_CAP = 32_000;

/** What the calls under way have reserved. */
interface InFlight {
  calls: number;
  tokens: number;
  cost: Usd;
}

/** A call let through: with the output cap it may use, and what it reserved. */
interface Admitted {
  call: GatewayCall;
  /** The bound of its input, in tokens. */
  input: number;
  tokens: number;
  cost: Usd;
  /** Whether it goes out with the whole cap it asked for (or the unasked default). */
  whole: boolean;
}

/**
 * A backend that answers within a budget, whatever the client asks for and however many calls it
 * makes at once. Each call reserves its worst case before it goes out: an upper bound of its
 * input (`input_bound.ts`) plus its output cap, in tokens and,
 * when priced, in dollars (input at the dearer of the input and cache-write prices). The cap is
 * lowered to what the budget still affords after every call answered and every call under way
 * (`GatewayCall.outputCap`, which the live backend sends upstream); a call is refused, in its wire
 * format, when not even {@linkcode MIN_ANSWER_TOKENS} fit, or when answered and pending calls
 * reach the cap on calls. An answered call is charged its real usage and its reservation released.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { budgetedBackend } from "./budget.ts";
 * import { GatewayLedger } from "./ledger.ts";
 * const seen: (number | undefined)[] = [];
 * const backend = budgetedBackend({
 *   spec: "fixed",
 *   answer: (call) => {
 *     seen.push(call.outputCap);
 *     return Promise.resolve({
 *       status: 200, contentType: "application/json", body: "{}",
 *       usage: { input: 400, cachedInput: 0, output: 100 },
 *     });
 *   },
 * }, new GatewayLedger(null), { maxTotalTokens: 1000, maxCostUsd: 0n, maxCalls: 10 });
 * const call = {
 *   number: 1, format: "messages" as const, stream: false, model: "m", body: '{"max_tokens":32000}',
 *   request: { system: "", messages: [], tools: [], maxOutputTokens: 32000 },
 * };
 * const signal = new AbortController().signal;
 * assert.equal((await backend.answer(call, signal)).status, 200);
 * assert.deepEqual(seen, [1000 - call.body.length]); // the cap lowered to what is left
 * assert.equal((await backend.answer({ ...call, number: 2 }, signal)).status, 200);
 * assert.equal((await backend.answer({ ...call, number: 3 }, signal)).status, 400); // 500 left
 * ```
 */
export function budgetedBackend(
  backend: GatewayBackend,
  ledger: GatewayLedger,
  budget: GatewayBudget,
): GatewayBackend {
  const inFlight: InFlight = { calls: 0, tokens: 0, cost: 0n };
  let last: AnsweredInput | null = null;
  return {
    spec: backend.spec,
    admissibleBytes: () => admissibleBytes(budget, ledger, inFlight, last),
    async answer(call, signal) {
      const admitted = call.unread
        ? unreadRefusal(call.unread.bytes, budget, ledger, inFlight, last)
        : admitWithin(call, last, budget, ledger, inFlight);
      if (typeof admitted === "string") {
        ledger.refuse(admitted);
        return {
          ...WIRE_CODECS[call.format].error(
            BUDGET_REFUSAL_STATUS,
            "invalid_request",
            `this trial's budget refuses the call: ${admitted}; Verdict answers no more model calls`,
          ),
          refusal: true,
        };
      }
      inFlight.calls++;
      inFlight.tokens += admitted.tokens;
      inFlight.cost += admitted.cost;
      try {
        const answer = await backend.answer(admitted.call, signal);
        ledger.charge(answer.usage);
        if (answer.usage !== null) last = answeredInput(call, answer.usage);
        return answer;
      } catch (error) {
        // Answered with success but unreadable: perhaps billed, and how much is unknown.
        if (error instanceof MalformedResponse && error.billed) ledger.charge(worstCase(admitted));
        throw error;
      } finally {
        inFlight.calls--;
        inFlight.tokens -= admitted.tokens;
        inFlight.cost -= admitted.cost;
      }
    },
  };
}

/** The call with the cap the budget affords and what it reserves, or why it is refused. */
function admit(
  call: GatewayCall,
  input: number,
  budget: GatewayBudget,
  ledger: GatewayLedger,
  inFlight: InFlight,
): Admitted | string {
  const { totals, price } = ledger;
  if (totals.calls + inFlight.calls >= budget.maxCalls) {
    const pending = inFlight.calls > 0 ? ` (${inFlight.calls} of them under way)` : "";
    return `the cap of ${budget.maxCalls} model calls reached${pending}`;
  }
  const asked = call.askedOutputCap !== undefined
    ? call.askedOutputCap
    : requestedOutputCap(call.format, call.body);
  const tokensLeft = budget.maxTotalTokens - totals.totalTokens - inFlight.tokens;
  const byTokens = tokensLeft - input;
  let byCost = Number.MAX_SAFE_INTEGER;
  let inputCost = 0n;
  if (price !== null && totals.costUsd !== null) {
    inputCost = costOf(input, price.input > price.cacheWrite ? price.input : price.cacheWrite);
    const costLeft = budget.maxCostUsd - totals.costUsd - inFlight.cost - inputCost;
    if (costLeft < 0n) byCost = -1;
    else if (price.output > 0n) {
      byCost = Number(bigMin((costLeft * 1_000_000n) / price.output, BigInt(byCost)));
    }
  }
  const cap = Math.min(asked ?? UNASKED_OUTPUT_CAP, byTokens, byCost);
  // A call that asks for fewer (a probe of one token) needs no more than it asked for.
  if (cap < Math.min(asked ?? MIN_ANSWER_TOKENS, MIN_ANSWER_TOKENS)) {
    return byCost < byTokens
      ? `max_cost_usd ${formatUsd(budget.maxCostUsd)} cannot afford another call ` +
        `($${formatUsd(totals.costUsd ?? 0n)} spent, $${formatUsd(inFlight.cost)} held by calls ` +
        `under way, up to $${formatUsd(inputCost)} for its input of up to ${input} tokens)`
      : `max_total_tokens ${budget.maxTotalTokens} cannot afford another call ` +
        `(${totals.totalTokens} tokens used, ${inFlight.tokens} held by calls under way, up to ` +
        `${input} for its input and ${MIN_ANSWER_TOKENS} for an answer)`;
  }
  // A call that asked for no cap is sent none unless the budget needs one: a model whose output
  // limit is below the reserved default would refuse a cap it cannot give.
  const lowered = cap < (asked ?? UNASKED_OUTPUT_CAP) ? { outputCap: cap } : {};
  return {
    call: { ...call, ...lowered },
    input,
    tokens: input + cap,
    cost: price === null ? 0n : inputCost + costOf(cap, price.output),
    whole: cap === (asked ?? UNASKED_OUTPUT_CAP),
  };
}

/**
 * Admits the call with its body's bytes as its input's bound, which costs nothing to know; only
 * when that does not fit whole is the tighter bound of a continued conversation worked out.
 */
function admitWithin(
  call: GatewayCall,
  last: AnsweredInput | null,
  budget: GatewayBudget,
  ledger: GatewayLedger,
  inFlight: InFlight,
): Admitted | string {
  const bytes = utf8Length(call.body);
  const admitted = admit(call, bytes, budget, ledger, inFlight);
  if (typeof admitted !== "string" && admitted.whole) return admitted;
  const tighter = inputBound(call, last);
  return tighter < bytes ? admit(call, tighter, budget, ledger, inFlight) : admitted;
}

/** What an admitted call can have used at most: its input's bound and its whole cap. */
function worstCase(admitted: Admitted): Usage {
  return { input: admitted.input, cachedInput: 0, output: admitted.tokens - admitted.input };
}

function bigMin(a: bigint, b: bigint): bigint {
  return a < b ? a : b;
}

/**
 * A backend that keeps to a recorded run's budget decisions, for a replay: the calls the record
 * refused (by their numbers) get their recorded refusals again, and every other call is admitted
 * and charged. Admission in the run depended on what was under way at the time, which a replay's
 * timing does not reproduce; the record does.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { recordedBudgetBackend } from "./budget.ts";
 * import { GatewayLedger } from "./ledger.ts";
 * const refusal = { status: 400, contentType: "application/json", body: "{}", usage: null };
 * const ledger = new GatewayLedger(null);
 * const backend = recordedBudgetBackend({
 *   spec: "replay",
 *   answer: () => Promise.resolve({ ...refusal, status: 200, usage: { input: 1, cachedInput: 0, output: 1 } }),
 * }, ledger, new Map([[2, { answer: refusal, detail: "max_total_tokens 9 cannot afford another call" }]]));
 * const call = {
 *   number: 1, format: "messages" as const, stream: false, model: "m", body: "{}",
 *   request: { system: "", messages: [], tools: [], maxOutputTokens: 1 },
 * };
 * const signal = new AbortController().signal;
 * assert.equal((await backend.answer(call, signal)).status, 200);
 * assert.equal((await backend.answer({ ...call, number: 2 }, signal)).status, 400);
 * assert.equal(ledger.stop?.reason, "budget");
 * ```
 */
export function recordedBudgetBackend(
  backend: GatewayBackend,
  ledger: GatewayLedger,
  refusals: ReadonlyMap<number, { answer: GatewayAnswer; detail: string }>,
): GatewayBackend {
  return {
    spec: backend.spec,
    async answer(call, signal) {
      const refused = refusals.get(call.number);
      if (refused !== undefined) {
        ledger.refuse(refused.detail);
        return { ...refused.answer, refusal: true };
      }
      const answer = await backend.answer(call, signal);
      ledger.charge(answer.usage);
      return answer;
    },
  };
}

/**
 * The largest body a call could be admitted with now: its input's lowest possible bound (its
 * bytes, or the last answered call's input plus what it grew by) and one token of answer must fit
 * the tokens left. Cost is left out: this only says which calls are surely refused.
 */
function admissibleBytes(
  budget: GatewayBudget,
  ledger: GatewayLedger,
  inFlight: InFlight,
  last: AnsweredInput | null,
): number {
  const { totals } = ledger;
  if (totals.calls + inFlight.calls >= budget.maxCalls) return 0;
  // One token of answer: a call may ask for no more than that.
  const room = budget.maxTotalTokens - totals.totalTokens - inFlight.tokens - 1;
  if (room < 0) return 0;
  if (last === null) return room;
  const continued = room - last.tokens - CONTINUATION_MARGIN + utf8Length(last.call.body);
  return Math.max(room, continued);
}

/** Why a call whose body was too large to read is refused (always: it was never read). */
function unreadRefusal(
  bytes: number,
  budget: GatewayBudget,
  ledger: GatewayLedger,
  inFlight: InFlight,
  last: AnsweredInput | null,
): string {
  return `max_total_tokens ${budget.maxTotalTokens} cannot afford another call ` +
    `(${ledger.totals.totalTokens} tokens used, ${inFlight.tokens} held by calls under way; ` +
    `its body of ${bytes} bytes is past the ${admissibleBytes(budget, ledger, inFlight, last)} ` +
    `that could still fit with an answer)`;
}
