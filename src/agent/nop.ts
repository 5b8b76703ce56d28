/**
 * The `nop` agent: does nothing, so its trial grades the untouched workspace. A task whose
 * tests pass under `nop` tests nothing.
 *
 * @module
 */
import { EVENT, event } from "../store/event_catalogue.ts";
import { ZERO_COUNTERS } from "../store/run_counters.ts";
import type { Agent, AgentOutcome } from "./agent.ts";

/**
 * The agent that does nothing.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { nopAgent } from "./nop.ts";
 * assert(nopAgent.name === "nop");
 * ```
 */
export const nopAgent: Agent = {
  name: "nop",
  run(context): Promise<AgentOutcome> {
    context.record([event(EVENT.agentNop, {})]);
    return Promise.resolve({
      stopReason: "completed",
      counters: { ...ZERO_COUNTERS },
      tokens: { input: 0, output: 0 },
    });
  },
};
