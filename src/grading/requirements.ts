/**
 * `requires`: what the run itself must have done, checked against counters the harness recorded,
 * never against anything the agent claims.
 *
 * @module
 */
import { formatUsd, usd } from "../core/money.ts";
import type { RunCounters } from "../store/run_counters.ts";
import type { Requires } from "../task/manifest.ts";

/** The outcome of one requirement. */
export interface RequirementResult {
  /** The key, such as `min_denied_calls`. */
  key: keyof Requires;
  /** Whether it held. */
  passed: boolean;
  /** Expected and actual, in words. */
  detail: string;
  /** Whether only a model-driven run can meet it (the oracle and nop agents never do). */
  modelOnly: boolean;
  /**
   * Whether it counts what Verdict's own loop does (policy denials, compactions), which an
   * installed agent's own tools and context never go through.
   */
  loopOnly: boolean;
}

/** The requirements that count what only Verdict's own loop does. */
const LOOP_ONLY: ReadonlySet<keyof Requires> = new Set<keyof Requires>([
  "min_compactions",
  "min_denied_calls",
  "max_denied_calls",
]);

/**
 * Checks each requirement against the counters.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ZERO_COUNTERS } from "../store/run_counters.ts";
 * import { checkRequirements } from "./requirements.ts";
 * const [result] = checkRequirements({ min_denied_calls: 1 }, ZERO_COUNTERS);
 * assert(!result.passed && result.modelOnly && result.loopOnly);
 * ```
 */
export function checkRequirements(requires: Requires, counters: RunCounters): RequirementResult[] {
  const results: RequirementResult[] = [];
  const loopOnly = (key: keyof Requires) => LOOP_ONLY.has(key);
  const atLeast = (key: keyof Requires, actual: number, wanted: number | undefined) => {
    if (wanted === undefined) return;
    results.push({
      key,
      passed: actual >= wanted,
      detail: `${key} ${wanted}: got ${actual}`,
      modelOnly: wanted > 0,
      loopOnly: loopOnly(key),
    });
  };
  const atMost = (key: keyof Requires, actual: number, wanted: number | undefined) => {
    if (wanted === undefined) return;
    results.push({
      key,
      passed: actual <= wanted,
      detail: `${key} ${wanted}: got ${actual}`,
      modelOnly: false,
      loopOnly: loopOnly(key),
    });
  };
  atLeast("min_steps", counters.steps, requires.min_steps);
  atMost("max_steps", counters.steps, requires.max_steps);
  atLeast("min_tool_calls", counters.toolCalls, requires.min_tool_calls);
  atLeast("min_compactions", counters.compactions, requires.min_compactions);
  atLeast("min_denied_calls", counters.deniedCalls, requires.min_denied_calls);
  atMost("max_denied_calls", counters.deniedCalls, requires.max_denied_calls);
  atMost("max_total_tokens", counters.totalTokens, requires.max_total_tokens);
  if (requires.max_cost_usd !== undefined) {
    const limit = usd(requires.max_cost_usd);
    results.push({
      key: "max_cost_usd",
      passed: counters.costUsd !== null && counters.costUsd <= limit,
      detail: `max_cost_usd ${formatUsd(limit)}: got ${
        counters.costUsd === null ? "unknown" : formatUsd(counters.costUsd)
      }`,
      modelOnly: false,
      loopOnly: false,
    });
  }
  for (const key of ["finished", "resumed"] as const) {
    const wanted = requires[key];
    if (wanted === undefined) continue;
    results.push({
      key,
      passed: counters[key] === wanted,
      detail: `${key} ${wanted}: got ${counters[key]}`,
      modelOnly: key === "resumed" && wanted,
      loopOnly: false,
    });
  }
  return results;
}
