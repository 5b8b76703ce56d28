/**
 * How the loop agent is set up: the options {@linkcode LoopAgentOptions} and the two shapes its
 * `runTool` hook sees, a tool call about to run and its result as the loop records it.
 *
 * @module
 */
import type { CrashPoint } from "../model/model_spec.ts";
import type { Model, RequestParameters } from "../model/model.ts";
import type { Price } from "../model/prices.ts";
import type { TokenCounter } from "../model/tokens.ts";
import type { Policy } from "../policy/policy.ts";
import type { Task } from "../task/task.ts";
import type { AnyTool, ToolResult } from "../tools/tool.ts";
import type { AgentContext } from "./agent.ts";

/**
 * A tool's result as the loop records it: possibly answered from the record.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { RecordedResult } from "./loop_options.ts";
 * const result: RecordedResult = { content: "ok", isError: false, cached: true };
 * assert(result.cached);
 * ```
 */
export type RecordedResult = ToolResult & {
  /** Answered from an earlier record of the same call (same idempotency key). */
  cached?: boolean;
  /** A non-idempotent call was started and never finished: its effect is unknown. */
  outcome_unknown?: boolean;
};

/** One tool call about to run, for {@linkcode LoopAgentOptions.runTool}. */
export interface PendingCall {
  /** The tool. */
  tool: AnyTool;
  /** Its validated arguments. */
  args: Record<string, unknown>;
  /** Its idempotency key: the session, its position (step, index) and its arguments. */
  key: string;
  /** The step. */
  step: number;
}

/** How the loop agent is set up for a run. */
export interface LoopAgentOptions {
  /** Makes the trial's model (the scripted model needs the trial's task and seed). */
  createModel(context: AgentContext): Promise<Model>;
  /** The policy for a task. */
  policyFor(task: Task): Policy;
  /** The price of a model, or null when its cost is unknown (`--no-cost`). */
  priceFor(model: Model): Price | null;
  /** Counts tokens for budgeting. */
  counter: TokenCounter;
  /** The tools; default the built-in ones. */
  tools?: readonly AnyTool[];
  /** The system prompt for a task; default `systemPrompt` from `system_prompt.ts`. */
  systemPrompt?: (task: Task) => string;
  /**
   * Runs a tool call; default `run()`. Resume and replay answer from the record here, and tell
   * the model "outcome unknown" for a non-idempotent call that was started and never finished.
   */
  runTool?: (call: PendingCall, run: () => Promise<ToolResult>) => Promise<RecordedResult>;
  /** Fault injection at named points of a step (a crash knob); told whether the trial was resumed. */
  crash?: (point: CrashPoint, step: number, resumed: boolean) => Promise<void>;
  /**
   * `--max-output-tokens`: every request's output budget (and the context reserved for it), in
   * place of the task's `context.reserve_output_tokens`.
   */
  maxOutputTokens?: number;
  /** The user's request parameters (`--temperature`, ...): on every request, fingerprinted. */
  parameters?: RequestParameters;
}
