/**
 * The events of one tool call in Verdict's loop: the policy's decision, the intent written before
 * the call runs, and its result.
 *
 * @module
 */
import { z } from "zod";
import { COUNT } from "./_fields.ts";

/** Which call of which step an event is about. */
const STEP_CALL = {
  /** The step. */
  step: COUNT,
  /** The call's id. */
  call_id: z.string(),
  /** The tool. */
  tool: z.string(),
};

/** The tool calls' events: kind → payload schema. */
export const TOOL_EVENTS = {
  "policy.decision": z.object({
    ...STEP_CALL,
    /** Whether the call may run. */
    allowed: z.boolean(),
    /** The deciding rule's index, or null when none matched. */
    rule: z.number().int().nullable(),
    /** Why. */
    reason: z.string(),
    /** What the rule saw. */
    subject: z.string(),
  }).describe("The policy's decision on a tool call."),

  "tool.intent": z.object({
    ...STEP_CALL,
    /** The parsed arguments. */
    arguments: z.record(z.string(), z.unknown()),
    /** The key a resume recognises the call by. */
    idempotency_key: z.string(),
    /** Whether running it twice is harmless. */
    idempotent: z.boolean(),
  }).describe("A tool call is about to run (written before it runs, so a crash leaves its trace)."),

  "tool.result": z.object({
    ...STEP_CALL,
    /** What the model is told. */
    content: z.string(),
    /** Whether it is an error. */
    is_error: z.boolean(),
    /** The agent called `finish`. */
    finish: z.literal(true).optional(),
    /** The call's key, when it got as far as running. */
    idempotency_key: z.string().optional(),
    /** Answered from the record on resume. */
    cached: z.literal(true).optional(),
    /** The harness stopped while it ran; whether it took effect is unknown. */
    outcome_unknown: z.literal(true).optional(),
  }).describe("A tool call's result."),
};
