/**
 * The provider-neutral conversation a model sees, and the interface every model implements:
 * the scripted model, OpenAI-compatible Chat Completions, Anthropic Messages, and replay.
 *
 * @module
 */

/** A tool call the model asked for. */
export interface ToolCall {
  /** The call's id, from the provider (or made up by the scripted model). */
  id: string;
  /** The tool's name. */
  name: string;
  /** The arguments as the model wrote them: JSON text, possibly invalid. */
  arguments: string;
}

/** One message of a conversation. */
export type Message =
  | { role: "user"; content: string }
  | { role: "assistant"; content: string; toolCalls: ToolCall[] }
  | { role: "tool"; toolCallId: string; name: string; content: string; isError: boolean };

/** A tool as offered to the model. */
export interface ToolSchema {
  /** Its name. */
  name: string;
  /** What it does, for the model. */
  description: string;
  /** JSON Schema of its arguments. */
  parameters: Record<string, unknown>;
}

/** One request to a model. */
export interface ModelRequest {
  /** The system prompt. */
  system: string;
  /** The conversation after the system prompt; the first message is the task's instruction. */
  messages: Message[];
  /** The tools on offer. */
  tools: ToolSchema[];
  /** The most tokens the answer may have. */
  maxOutputTokens: number;
  /**
   * Sampling and transport settings the user chose (`--temperature`, `--reasoning-effort`,
   * `--header`): part of the fingerprint, so a replay notices a changed one. Absent when none
   * was chosen, so requests made without them keep their fingerprints.
   */
  parameters?: RequestParameters;
}

/**
 * A request's user-chosen settings, as recorded. Headers are by lower-case name; the value of one
 * whose name says it holds a secret (`authorization`, `*-key`, `*token*`, ...) is
 * `[redacted]` here: the real value goes on the wire only (see `provider_options.ts`).
 */
export type RequestParameters = {
  /** `--temperature`. */
  temperature?: number;
  /** `--reasoning-effort` (OpenAI reasoning models). */
  reasoning_effort?: "low" | "medium" | "high";
  /** `--header K:V`, secret values redacted. */
  headers?: Record<string, string>;
};

/** Tokens a call used, as the provider counted them. */
export interface Usage {
  /** Input tokens not served from a cache. */
  input: number;
  /** Input tokens read from the provider's cache. */
  cachedInput: number;
  /**
   * Input tokens written to the provider's cache (Anthropic's `cache_creation_input_tokens`),
   * priced apart; absent when there were none, and in records made before it was counted.
   */
  cacheWriteInput?: number;
  /** Output tokens. */
  output: number;
}

/** A model's answer. */
export interface ModelResponse {
  /** Its text. */
  content: string;
  /** The tools it wants called, in order. */
  toolCalls: ToolCall[];
  /** Why it stopped: done, wants tools, out of tokens, or refused. */
  finish: "stop" | "tool_calls" | "length" | "refusal";
  /** Tokens used. */
  usage: Usage;
}

/** Per-call options. */
export interface CallOptions {
  /** Aborts the call: the deadline, or an interrupt. */
  signal: AbortSignal;
}

/**
 * A model: it answers a request (the system prompt, the conversation, the tools on offer) with
 * text and tool calls. Write one to drive Verdict's loop with a backend of your own.
 *
 * @example A model that asks to finish at once
 * ```ts
 * import assert from "node:assert/strict";
 * import type { Model } from "./model.ts";
 * const model: Model = {
 *   spec: "finish-now",
 *   remote: false,
 *   complete: () =>
 *     Promise.resolve({
 *       content: "",
 *       toolCalls: [{ id: "c1", name: "finish", arguments: '{"summary":"nothing to do"}' }],
 *       finish: "tool_calls",
 *       usage: { input: 1, cachedInput: 0, output: 1 },
 *     }),
 * };
 * const answer = await model.complete(
 *   { system: "", messages: [], tools: [], maxOutputTokens: 100 },
 *   { signal: new AbortController().signal },
 * );
 * assert.equal(answer.toolCalls[0].name, "finish");
 * ```
 */
export interface Model {
  /** The spec it was made from, without secrets, such as `openai:gpt-4o`. */
  readonly spec: string;
  /** Whether it runs remotely and costs money (a price is then required). */
  readonly remote: boolean;
  /** Answers one request. */
  complete(request: ModelRequest, options: CallOptions): Promise<ModelResponse>;
}

/**
 * Total input tokens of a usage (cache reads and writes included).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { totalInput } from "./model.ts";
 * assert(totalInput({ input: 10, cachedInput: 5, cacheWriteInput: 2, output: 1 }) === 17);
 * ```
 */
export function totalInput(usage: Usage): number {
  return usage.input + usage.cachedInput + (usage.cacheWriteInput ?? 0);
}
