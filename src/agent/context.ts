/**
 * Fitting a conversation into the context budget. The budget covers the whole request: system
 * prompt, tool schemas, messages and the reserved output. The system prompt and the first user
 * message (the task) always stay; older turns go first, each assistant message together with the
 * results of its tool calls, so a request never holds a call without its result or a result
 * without its call. `summarize` leaves a short account of what was removed; `truncate` does not.
 *
 * @module
 */
import type { EVENT, EventPayload } from "../store/event_catalogue.ts";
import type { Message, ToolSchema } from "../model/model.ts";
import { MESSAGE_OVERHEAD, messageTokens, type TokenCounter, toolTokens } from "../model/tokens.ts";
import { truncateMiddle } from "../tools/truncate.ts";

/** A task's `context` settings. */
export interface ContextBudget {
  /** Tokens the whole request may use, reserved output included. */
  maxTokens: number;
  /** Tokens kept free for the answer. */
  reserveOutputTokens: number;
  /** How to make room. */
  strategy: "truncate" | "summarize";
}

/** What one compaction did, as its `context.compacted` event records it (less the step). */
export type Compaction = Omit<EventPayload<typeof EVENT.contextCompacted>, "step">;

/** The outcome of fitting. */
export type FitOutcome =
  | { kind: "fits"; messages: Message[]; compaction?: Compaction }
  | { kind: "prefix_too_large"; needed: number; budget: number };

/** Marks the summary message that `summarize` keeps after the task. */
export const SUMMARY_PREFIX = "[Summary of earlier steps, removed to fit the context budget]";

/**
 * Fits messages into the budget, compacting when needed.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { fitContext } from "./context.ts";
 * import { heuristicCounter } from "../model/tokens.ts";
 * const outcome = fitContext("system", [{ role: "user", content: "task" }], [], {
 *   maxTokens: 1000, reserveOutputTokens: 100, strategy: "truncate",
 * }, heuristicCounter);
 * assert(outcome.kind === "fits" && outcome.compaction === undefined);
 * ```
 */
export function fitContext(
  system: string,
  messages: readonly Message[],
  tools: readonly ToolSchema[],
  budget: ContextBudget,
  counter: TokenCounter,
): FitOutcome {
  const limit = budget.maxTokens - budget.reserveOutputTokens;
  const fixed = MESSAGE_OVERHEAD + counter.count(system) + toolTokens(counter, tools) +
    messageTokens(counter, messages[0]);
  if (fixed > limit) {
    return {
      kind: "prefix_too_large",
      needed: fixed + budget.reserveOutputTokens,
      budget: budget.maxTokens,
    };
  }
  const sum = (list: readonly Message[]) =>
    list.reduce((total, message) => total + messageTokens(counter, message), 0);
  const before = fixed + sum(messages.slice(1));
  if (before <= limit) return { kind: "fits", messages: [...messages] };

  let groups = turns(messages.slice(1));
  let previousSummary = "";
  if (groups[0]?.[0].role === "user" && groups[0][0].content.startsWith(SUMMARY_PREFIX)) {
    previousSummary = groups[0][0].content.slice(SUMMARY_PREFIX.length).trim();
    groups = groups.slice(1);
  }
  const removed: Message[][] = [];
  const summaryOf = () =>
    [previousSummary, ...removed.map(describeTurn)].filter((line) => line !== "").join("\n");
  const assemble = () => {
    const kept = groups.slice(removed.length).flat();
    const summary = budget.strategy === "summarize" ? summaryOf() : "";
    return summary === ""
      ? [messages[0], ...kept]
      : [messages[0], { role: "user" as const, content: `${SUMMARY_PREFIX}\n${summary}` }, ...kept];
  };
  let fitted = assemble();
  while (fixed + sum(fitted.slice(1)) > limit && removed.length < groups.length - 1) {
    removed.push(groups[removed.length]);
    fitted = assemble();
  }
  let shortened = 0;
  if (fixed + sum(fitted.slice(1)) > limit) {
    [fitted, shortened] = shortenResults(fitted, limit - fixed, counter);
  }
  if (fixed + sum(fitted.slice(1)) > limit) {
    // Not even the newest turn fits: keep only the task (and the summary).
    removed.push(...groups.slice(removed.length));
    fitted = assemble();
  }
  const after = fixed + sum(fitted.slice(1));
  const removedMessages = removed.flat();
  return {
    kind: "fits",
    messages: fitted,
    compaction: {
      strategy: budget.strategy,
      removedMessages: removedMessages.length,
      removedTokens: sum(removedMessages),
      shortenedResults: shortened,
      tokensBefore: before + budget.reserveOutputTokens,
      tokensAfter: after + budget.reserveOutputTokens,
      ...(budget.strategy === "summarize" ? { summary: summaryOf() } : {}),
    },
  };
}

/** Splits messages into turns: an assistant message with its tool results, or a lone user message. */
function turns(messages: readonly Message[]): Message[][] {
  const groups: Message[][] = [];
  for (const message of messages) {
    if (message.role === "tool" && groups.length > 0) groups.at(-1)!.push(message);
    else groups.push([message]);
  }
  return groups;
}

function describeTurn(turn: readonly Message[]): string {
  const [head, ...results] = turn;
  if (head.role !== "assistant") return `- note: ${firstLine(head.content)}`;
  if (head.toolCalls.length === 0) return `- you said: ${firstLine(head.content)}`;
  return head.toolCalls.map((call) => {
    const result = results.find((message) =>
      message.role === "tool" && message.toolCallId === call.id
    );
    const outcome = result?.role === "tool"
      ? (result.isError ? `error: ${firstLine(result.content)}` : "ok")
      : "no result";
    return `- ${call.name} ${briefArguments(call.arguments)}: ${outcome}`;
  }).join("\n");
}

function briefArguments(text: string): string {
  try {
    const args = JSON.parse(text) as Record<string, unknown>;
    const key = ["path", "command", "pattern", "page"].find((name) =>
      typeof args[name] === "string"
    );
    return key ? firstLine(String(args[key])) : "";
  } catch {
    return "(invalid arguments)";
  }
}

function firstLine(text: string): string {
  const line = text.split("\n")[0];
  return line.length > 100 ? `${line.slice(0, 100)}…` : line;
}

function shortenResults(
  messages: Message[],
  room: number,
  counter: TokenCounter,
): [Message[], number] {
  let shortened = 0;
  let result = messages;
  for (let max = 8000; max >= 200; max = Math.floor(max / 2)) {
    shortened = 0;
    result = messages.map((message) => {
      if (message.role !== "tool" || message.content.length <= max) return message;
      shortened++;
      return { ...message, content: truncateMiddle(message.content, max) };
    });
    if (
      result.slice(1).reduce((total, message) => total + messageTokens(counter, message), 0) <= room
    ) break;
  }
  return [result, shortened];
}
