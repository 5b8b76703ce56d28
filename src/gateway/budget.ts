/**
 * Budgets enforced at the gateway: once a trial has used its tokens (`max_total_tokens`), its
 * money (`max_cost_usd`, when priced) or its model calls, the next call is refused with an error
 * in the call's wire format, and the ledger records `budget` as the trial's stop reason. A limit
 * is checked when a call arrives, against what the calls before it used: the gateway cannot know
 * what a call will use before it is answered, so the call that crosses a limit is answered and
 * the one after it is refused.
 *
 * @module
 */
import { formatUsd, type Usd, usd } from "../core/money.ts";
import type { GatewayBackend } from "./gateway.ts";
import { WIRE_CODECS } from "./handler.ts";
import type { GatewayLedger, LedgerTotals } from "./ledger.ts";

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
 * Which budget is spent, in words, or null while every one has room.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { budgetSpent } from "./budget.ts";
 * const budget = { maxTotalTokens: 100, maxCostUsd: 0n, maxCalls: 5 };
 * const totals = { calls: 1, tokens: { input: 90, output: 20 }, totalTokens: 110, costUsd: null };
 * assert.match(budgetSpent(budget, totals)!, /max_total_tokens 100/);
 * ```
 */
export function budgetSpent(budget: GatewayBudget, totals: LedgerTotals): string | null {
  if (totals.totalTokens >= budget.maxTotalTokens) {
    return `max_total_tokens ${budget.maxTotalTokens} reached (${totals.totalTokens} tokens used)`;
  }
  if (totals.costUsd !== null && totals.costUsd >= budget.maxCostUsd) {
    return `max_cost_usd ${formatUsd(budget.maxCostUsd)} reached ` +
      `($${formatUsd(totals.costUsd)} spent)`;
  }
  if (totals.calls >= budget.maxCalls) {
    return `the cap of ${budget.maxCalls} model calls reached`;
  }
  return null;
}

/**
 * A backend that answers within a budget: each call is refused once a budget is spent, otherwise
 * answered by `backend` and charged to `ledger`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { budgetedBackend } from "./budget.ts";
 * import { GatewayLedger } from "./ledger.ts";
 * const backend = budgetedBackend({
 *   spec: "fixed",
 *   answer: () => Promise.resolve({
 *     status: 200, contentType: "application/json", body: "{}",
 *     usage: { input: 60, cachedInput: 0, output: 60 },
 *   }),
 * }, new GatewayLedger(null), { maxTotalTokens: 100, maxCostUsd: 0n, maxCalls: 10 });
 * const call = {
 *   number: 1, format: "chat_completions" as const, stream: false, model: "m", body: "{}",
 *   request: { system: "", messages: [], tools: [], maxOutputTokens: 1 },
 * };
 * const signal = new AbortController().signal;
 * assert.equal((await backend.answer(call, signal)).status, 200);
 * assert.equal((await backend.answer({ ...call, number: 2 }, signal)).status, 400);
 * ```
 */
export function budgetedBackend(
  backend: GatewayBackend,
  ledger: GatewayLedger,
  budget: GatewayBudget,
): GatewayBackend {
  return {
    spec: backend.spec,
    async answer(call, signal) {
      const spent = budgetSpent(budget, ledger.totals);
      if (spent !== null) {
        ledger.refuse(spent);
        return WIRE_CODECS[call.format].error(
          BUDGET_REFUSAL_STATUS,
          "invalid_request",
          `this trial's budget is spent: ${spent}; Verdict answers no more model calls`,
        );
      }
      const answer = await backend.answer(call, signal);
      ledger.charge(answer.usage);
      return answer;
    },
  };
}
