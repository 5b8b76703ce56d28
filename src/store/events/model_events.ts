/**
 * The events of Verdict's loop talking to its model: the context made to fit, each request (as
 * blob hashes), each retry and each answer.
 *
 * @module
 */
import { z } from "zod";
import { COUNT, HASH, USAGE } from "./_fields.ts";

/** The blob hashes of a request's parts. */
const RECORDED_REQUEST = z.object({
  /** The system prompt's blob. */
  system: HASH,
  /** The tool schemas' blob. */
  tools: HASH,
  /** The output budget. */
  max_output_tokens: COUNT,
  /**
   * The user's settings (`--temperature`, `--reasoning-effort`, `--header` with secret values
   * redacted); absent when none were chosen, and in records made before they existed.
   */
  parameters: z.object({
    temperature: z.number().optional(),
    reasoning_effort: z.enum(["low", "medium", "high"]).optional(),
    headers: z.record(z.string(), z.string()).optional(),
  }).optional(),
  /** The blobs of the messages after the first `prefix`, which the previous request had. */
  messages: z.array(HASH),
  /** How many leading messages it shares with the previous request. */
  prefix: COUNT,
});

/** The model's answer. */
const RECORDED_RESPONSE = z.object({
  /** Its text. */
  content: z.string(),
  /** The tools it wants called. */
  toolCalls: z.array(z.object({
    /** The call's id. */
    id: z.string(),
    /** The tool. */
    name: z.string(),
    /** The arguments, as JSON text the model wrote. */
    arguments: z.string(),
  })),
  /** Why it stopped. */
  finish: z.enum(["stop", "tool_calls", "length", "refusal"]),
  /** Its tokens. */
  usage: USAGE,
});

/** The model's events: kind → payload schema. */
export const MODEL_EVENTS = {
  "context.compacted": z.object({
    /** The step. */
    step: COUNT,
    /** How. */
    strategy: z.enum(["truncate", "summarize"]),
    /** Messages removed. */
    removedMessages: COUNT,
    /** Their tokens. */
    removedTokens: COUNT,
    /** Tool results shortened. */
    shortenedResults: COUNT,
    /** Request tokens before. */
    tokensBefore: COUNT,
    /** After. */
    tokensAfter: COUNT,
    /** The summary left in place of the removed turns (`summarize`). */
    summary: z.string().optional(),
  }).describe("The context was made to fit before a step."),

  "model.request": z.object({
    /** The step. */
    step: COUNT,
    /** The request's fingerprint (checked on replay and resume). */
    fingerprint: HASH,
    /** Its parts, as blob hashes. */
    request: RECORDED_REQUEST,
  }).describe("A request to the model: its fingerprint and the blob hashes of its new parts."),

  "model.retry": z.object({
    /** The attempt that failed, from 1. */
    attempt: COUNT,
    /** Its HTTP status, or null when there was none. */
    status: z.number().int().nullable(),
    /** What went wrong. */
    message: z.string(),
    /** The wait before the next attempt, in ms. */
    waitMs: COUNT,
  }).describe("A provider call failed and is tried again."),

  "model.response": z.object({
    /** The step. */
    step: COUNT,
    /** The answer. */
    response: RECORDED_RESPONSE,
    /** Its cost in dollars (decimal text), or null when unpriced. */
    cost_usd: z.string().nullable(),
  }).describe("The model's answer, and what it cost (dollars as decimal text, or null unpriced)."),
};
