/**
 * The words of agents and models, for writing your own: what an agent reports (why it stopped,
 * what it counted) and what a model backend reads and answers (the conversation, the tools on
 * offer, the calls it makes, the tokens it used). `TrialAgent`, `TrialContext` and `Model` are in
 * the main module.
 *
 * @example A model backend that answers every request by finishing
 * ```ts
 * import assert from "node:assert/strict";
 * import type { Model } from "./mod.ts";
 * import type { ModelRequest, ModelResponse } from "./agents.ts";
 * const model: Model = {
 *   spec: "finisher",
 *   remote: false,
 *   complete(request: ModelRequest): Promise<ModelResponse> {
 *     const summary = `done: ${request.messages.length} messages`;
 *     return Promise.resolve({
 *       content: "",
 *       toolCalls: [{ id: "c1", name: "finish", arguments: JSON.stringify({ summary }) }],
 *       finish: "tool_calls",
 *       usage: { input: 10, cachedInput: 0, output: 5 },
 *     });
 *   },
 * };
 * assert.equal(model.spec, "finisher");
 * ```
 *
 * @module
 */
export type {
  CallOptions,
  Message,
  ModelRequest,
  ModelResponse,
  RequestParameters,
  ToolCall,
  ToolSchema,
  Usage,
} from "./src/model/model.ts";
export type { ProviderOptions, ReasoningEffort } from "./src/model/provider_options.ts";
export { type RunCounters, ZERO_COUNTERS } from "./src/store/run_counters.ts";
export {
  type ProviderFailure,
  STOP_REASONS,
  type StopReason,
} from "./src/store/events/agent_events.ts";
export type { Usd } from "./src/core/money.ts";
export type { Rng } from "./src/core/rng.ts";
