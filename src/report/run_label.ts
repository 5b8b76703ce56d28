/**
 * A run's label for people: its agent and model, so runs of a sweep are told apart by what they
 * ran, not by their ids alone.
 *
 * @module
 */

/**
 * The agent and model a run's configuration names (`loop, scripted`; `oracle` for an agent with no
 * model).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { runLabel } from "./run_label.ts";
 * assert.equal(runLabel({ agent: "loop", model: "openai:gpt-4o" }), "loop, openai:gpt-4o");
 * assert.equal(runLabel({ agent: "oracle", model: null }), "oracle");
 * ```
 */
export function runLabel(config: Record<string, unknown>): string {
  const agent = typeof config.agent === "string" ? config.agent : "?";
  return typeof config.model === "string" ? `${agent}, ${config.model}` : agent;
}
