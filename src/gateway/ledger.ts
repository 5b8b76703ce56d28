/**
 * What a trial's gateway has spent: model calls answered, tokens and cost, and whether a budget
 * stopped the agent. An installed agent reports these in its outcome (the loop counts the same
 * things itself), so results and statistics count an installed agent's tokens and cost too.
 *
 * @module
 */
import type { Usd } from "../core/money.ts";
import { totalInput, type Usage } from "../model/model.ts";
import { costOfUsage, type Price } from "../model/prices.ts";
import type { ProviderFailure } from "../store/events/agent_events.ts";
import type { RunCounters } from "../store/run_counters.ts";

/** What the ledger has counted. */
export interface LedgerTotals {
  /** Calls answered by the backend (a call refused by a budget is not one). */
  calls: number;
  /** Input tokens (cache reads and writes included) and output tokens. */
  tokens: { input: number; output: number };
  /** Input plus output tokens. */
  totalTokens: number;
  /** The cost, or null when the model is unpriced. */
  costUsd: Usd | null;
}

/** A budget that stopped the agent. */
export interface LedgerStop {
  /** Always `budget`: the stop reason the trial records. */
  reason: "budget";
  /** Which budget, in words. */
  detail: string;
}

/**
 * The cost of one call's usage, or null when unpriced (or when the answer has no usage: an error
 * costs nothing).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { callCost } from "./ledger.ts";
 * import { SCRIPTED_PRICE } from "../model/prices.ts";
 * import { formatUsd } from "../core/money.ts";
 * const cost = callCost(SCRIPTED_PRICE, { input: 1_000_000, cachedInput: 0, output: 0 });
 * assert.equal(formatUsd(cost!), "1.000000");
 * assert.equal(callCost(null, { input: 1, cachedInput: 0, output: 0 }), null);
 * ```
 */
export function callCost(price: Price | null, usage: Usage | null): Usd | null {
  if (price === null) return null;
  return usage === null ? 0n : costOfUsage(price, usage);
}

/**
 * The running account of one trial's gateway.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { GatewayLedger } from "./ledger.ts";
 * import { SCRIPTED_PRICE } from "../model/prices.ts";
 * const ledger = new GatewayLedger(SCRIPTED_PRICE);
 * ledger.charge({ input: 10, cachedInput: 5, output: 2 });
 * assert.deepEqual(ledger.totals.tokens, { input: 15, output: 2 });
 * assert.equal(ledger.totals.calls, 1);
 * assert.equal(ledger.counters.totalTokens, 17);
 * ledger.providerFailed("openai endpoint unavailable after 5 attempts: HTTP 500: down");
 * assert.equal(ledger.providerFailure?.calls, 1);
 * ```
 */
export class GatewayLedger {
  readonly #price: Price | null;
  #calls = 0;
  #input = 0;
  #output = 0;
  #cost: Usd | null;
  #stop: LedgerStop | null = null;
  #providerFailure: ProviderFailure | null = null;
  readonly #closing = new AbortController();

  /** A ledger that prices calls at `price` (null: the cost stays unknown). */
  constructor(price: Price | null) {
    this.#price = price;
    this.#cost = price === null ? null : 0n;
  }

  /** Counts one answered call and its usage; returns its cost (null when unpriced). */
  charge(usage: Usage | null): Usd | null {
    this.#calls++;
    if (usage !== null) {
      this.#input += totalInput(usage);
      this.#output += usage.output;
    }
    const cost = callCost(this.#price, usage);
    if (cost !== null && this.#cost !== null) this.#cost += cost;
    return cost;
  }

  /** Records that a budget refused a call: the trial's stop reason is then `budget`. */
  refuse(detail: string): void {
    this.#stop ??= { reason: "budget", detail };
  }

  /**
   * Counts a call its provider failed (unavailable past the retries, the key refused, an answer
   * malformed or cut short); the first one's words are kept.
   */
  providerFailed(description: string): void {
    const calls = (this.#providerFailure?.calls ?? 0) + 1;
    this.#providerFailure = { calls, first: this.#providerFailure?.first ?? description };
  }

  /** The calls the provider failed, or null when none did. */
  get providerFailure(): ProviderFailure | null {
    return this.#providerFailure;
  }

  /**
   * The agent has stopped: its gateway answers no more calls (a process it left behind gets a
   * refusal, and nothing of it is recorded), and the calls still under way are aborted.
   */
  close(): void {
    this.#closing.abort(new Error("the agent has stopped"));
  }

  /** Whether the agent has stopped. */
  get closed(): boolean {
    return this.#closing.signal.aborted;
  }

  /** Aborts, once the agent has stopped, the calls still under way. */
  get closedSignal(): AbortSignal {
    return this.#closing.signal;
  }

  /** The price calls are charged at, or null when unpriced. */
  get price(): Price | null {
    return this.#price;
  }

  /** What has been counted so far. */
  get totals(): LedgerTotals {
    return {
      calls: this.#calls,
      tokens: { input: this.#input, output: this.#output },
      totalTokens: this.#input + this.#output,
      costUsd: this.#cost,
    };
  }

  /**
   * The counters an installed agent reports in its outcome: a model call answered is a step, as
   * a model call is one of the loop's.
   */
  get counters(): Pick<RunCounters, "steps" | "totalTokens" | "costUsd"> {
    return { steps: this.#calls, totalTokens: this.#input + this.#output, costUsd: this.#cost };
  }

  /** The budget that stopped the agent (the first refusal), or null. */
  get stop(): LedgerStop | null {
    return this.#stop;
  }
}
