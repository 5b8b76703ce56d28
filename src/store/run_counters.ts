/**
 * What the harness counted during a trial: produced by the agents, stored in the `agent.stopped`
 * event, read by grading's `requires`. Typed here, below all three.
 *
 * @module
 */
import type { Usd } from "../core/money.ts";

/** What the harness counted during a trial. */
export interface RunCounters {
  /** Model steps taken. */
  steps: number;
  /** Tool calls made (allowed or denied). */
  toolCalls: number;
  /** Context compactions. */
  compactions: number;
  /** Tool calls the policy denied. */
  deniedCalls: number;
  /** Input plus output tokens. */
  totalTokens: number;
  /** Cost, or null when unknown. */
  costUsd: Usd | null;
  /** Whether the agent stopped on its own. */
  finished: boolean;
  /** Whether the trial was interrupted and resumed. */
  resumed: boolean;
}

/**
 * Counters of an agent that did nothing.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ZERO_COUNTERS } from "./run_counters.ts";
 * assert.equal({ ...ZERO_COUNTERS, steps: 1 }.steps, 1);
 * ```
 */
export const ZERO_COUNTERS: RunCounters = {
  steps: 0,
  toolCalls: 0,
  compactions: 0,
  deniedCalls: 0,
  totalTokens: 0,
  costUsd: 0n,
  finished: false,
  resumed: false,
};
