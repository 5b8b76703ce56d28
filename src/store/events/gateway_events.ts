/**
 * The events of the model gateway: each model call an installed agent made through it, and what
 * answered.
 *
 * @module
 */
import { z } from "zod";
import { COUNT, HASH, USAGE } from "./_fields.ts";

/** The gateway's events: kind → payload schema. */
export const GATEWAY_EVENTS = {
  "gateway.call": z.object({
    /** Its number in the trial, from 1. */
    number: COUNT,
    /** Its wire format. */
    format: z.enum(["chat_completions", "responses", "messages"]),
    /** Whether the agent asked for a stream. */
    stream: z.boolean(),
    /** The model the agent named. */
    model: z.string(),
    /**
     * The request body exactly as the agent sent it (a blob when large, as any payload field); for
     * a call the gateway refused (`body_sha256` present), only its first 1,024 characters.
     */
    body: z.string(),
    /** A refused call's body: its SHA-256, hex. Absent when `body` is whole. */
    body_sha256: HASH.optional(),
    /** A refused call's body: its size in bytes. Absent when `body` is whole. */
    body_bytes: COUNT.optional(),
  }).describe(
    "A model call an agent made through the gateway: the request body as sent, or for a call " +
      "the gateway refused, its hash, size and first 1,024 characters.",
  ),

  "gateway.answer": z.object({
    /** The call's number. */
    number: COUNT,
    /** The HTTP status. */
    status: z.number().int(),
    /** The content type. */
    content_type: z.string(),
    /** The body exactly as sent to the agent (a blob when large). */
    body: z.string(),
    /** Its tokens, from its usage block; null when it has none. */
    usage: USAGE.nullable(),
    /** Its cost in dollars (decimal text), or null when unpriced. */
    cost_usd: z.string().nullable(),
  }).describe(
    "What answered a gateway call, with its tokens and cost (dollars as decimal text, or null).",
  ),
};
