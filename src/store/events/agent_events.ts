/**
 * The events of an agent's run: what the oracle, the nop agent or an installed agent did, how
 * Verdict's own loop started and stopped, and how the agent ended. The stop reasons are listed
 * here, once.
 *
 * @module
 */
import { z } from "zod";
import { COUNT, HASH, TOKENS } from "./_fields.ts";

/**
 * Why an agent stopped (SPEC section 4), as its `agent.stopped` event records it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { STOP_REASONS } from "./agent_events.ts";
 * assert(STOP_REASONS.includes("max_steps"));
 * ```
 */
export const STOP_REASONS = [
  "completed",
  "max_steps",
  "timeout",
  "budget",
  "refused",
  "truncated",
  "error",
] as const;

/** Why an agent stopped: one of {@linkcode STOP_REASONS}. */
export type StopReason = (typeof STOP_REASONS)[number];

/**
 * The model calls of an installed agent that its provider failed (unavailable past the retries,
 * the key refused, an answer malformed or cut short), as its gateway counted them.
 */
export interface ProviderFailure {
  /** How many calls. */
  calls: number;
  /** The first one's failure, in words (the upstream's status in it). */
  first: string;
}

const PROVIDER_FAILURE = z.object({
  /** How many calls. */
  calls: COUNT,
  /** The first one's failure, in words. */
  first: z.string(),
});

const TRANSCRIPT_STEP = z.discriminatedUnion("type", [
  z.object({
    /** The agent said something (text to the user, not a tool call). */
    type: z.literal("message"),
    /** What it said. */
    text: z.string(),
  }),
  z.object({
    /** The agent called one of its tools. */
    type: z.literal("tool_call"),
    /** The call's id in the transcript, which its result names. */
    id: z.string(),
    /** The tool's name, as the agent calls it (`Bash`, `command_execution`, ...). */
    name: z.string(),
    /** The shell command it ran, for a shell tool; null for other tools. */
    command: z.string().nullable(),
    /** The call's input as JSON text. */
    input: z.string(),
  }),
  z.object({
    /** A tool call's result. */
    type: z.literal("tool_result"),
    /** The id of the call it answers. */
    id: z.string(),
    /** The result's text. */
    output: z.string(),
    /** Whether the agent's tool reported a failure. */
    is_error: z.boolean(),
    /** The command's exit code, where the agent reports one. */
    exit_code: z.number().int().nullable(),
  }),
]);

/** One step of an installed agent's own transcript, as Verdict reads it. */
export type TranscriptStep = z.output<typeof TRANSCRIPT_STEP>;

/** What the harness counted, as `agent.stopped` stores it. */
const COUNTERS = z.object({
  /** Model steps. */
  steps: COUNT,
  /** Tool calls. */
  toolCalls: COUNT,
  /** Compactions. */
  compactions: COUNT,
  /** Denied calls. */
  deniedCalls: COUNT,
  /** Input plus output tokens. */
  totalTokens: COUNT,
  /** Whether the agent stopped on its own. */
  finished: z.boolean(),
  /** Whether the trial was resumed. */
  resumed: z.boolean(),
  /** Cost in micro-dollars (an integer as decimal text), or null when unpriced. */
  cost_usd: z.string().nullable(),
});

/** The agents' events: kind → payload schema. */
export const AGENT_EVENTS = {
  "agent.oracle": z.object({
    /** The applying script's exit code. */
    exit_code: z.number().int(),
    /** Whether it ran past the deadline. */
    timed_out: z.boolean(),
    /** Its stdout. */
    stdout: z.string(),
    /** Its stderr. */
    stderr: z.string(),
  }).describe("The oracle applied the reference solution."),

  "agent.nop": z.object({}).describe("The nop agent did nothing."),

  "agent.cmd": z.object({
    /** The command (`--agent cmd:COMMAND`). */
    command: z.string(),
    /** Its exit code (137 when killed). */
    exit_code: z.number().int(),
    /** Whether the task's deadline killed it. */
    timed_out: z.boolean(),
    /** Its stdout, head and tail when long. */
    stdout: z.string(),
    /** Its stderr, head and tail when long. */
    stderr: z.string(),
    /**
     * What its clock was set to (libfaketime), as an ISO time: the run's start, so that a replay
     * shows it the same; null when its image has no libfaketime and it read the container's own.
     */
    clock_start: z.string().nullable().optional(),
    /** The named masks a replay of its model calls applies (see `REPLAY_MASKS`). */
    replay_masks: z.array(z.string()).optional(),
    /** The task's instruction as the agent got it (absent in records made before it was kept). */
    instruction: z.string().optional(),
  }).describe("An installed agent's command ran to its end."),

  "agent.transcript": z.object({
    /** The installed agent (`claude-code`, `codex`). */
    agent: z.string(),
    /** What it did, in order. */
    steps: z.array(TRANSCRIPT_STEP),
    /** How long the agent says it ran, in milliseconds; null when it does not say. */
    duration_ms: z.number().nonnegative().nullable(),
    /** Transcript lines that were not JSON, or not in a shape Verdict reads (kept in `agent.cmd`). */
    unread_lines: COUNT,
  }).describe("An installed agent's own transcript, read into steps."),

  "loop.started": z.object({
    /** The model spec, without secrets. */
    model: z.string(),
    /** Where the policy came from. */
    policy: z.string(),
    /** The policy rules' hash. */
    policy_sha256: HASH,
    /** The tools' names. */
    tools: z.array(z.string()),
    /** The system prompt's hash. */
    system_prompt_sha256: HASH,
    /** The task's limits. */
    limits: z.record(z.string(), z.unknown()),
    /** The task's context settings. */
    context: z.record(z.string(), z.unknown()),
  }).describe("Verdict's loop began: its model, policy, tools, prompt and limits."),

  "loop.stopped": z.object({
    /** Why. */
    stop_reason: z.enum(STOP_REASONS),
    /** In words, or null. */
    detail: z.string().nullable(),
  }).describe("The loop stopped, and why."),

  "agent.stopped": z.object({
    /** Why it stopped. */
    stop_reason: z.enum(STOP_REASONS),
    /** In words, or null. */
    detail: z.string().nullable(),
    /** What the harness counted. */
    counters: COUNTERS,
    /** Tokens used. */
    tokens: TOKENS,
    /**
     * Why the agent container's exec channel stopped working while the agent ran (its commands
     * went through `docker exec` from then on); absent when it did not.
     */
    exec_channel_lost: z.string().optional(),
    /**
     * The calls its gateway's provider failed, when any did: a trial that then fails is the
     * provider's (`infrastructure_error`), not the agent's. Absent when none did.
     */
    provider_failure: PROVIDER_FAILURE.optional(),
  }).describe("The agent stopped: enough to rebuild its outcome on resume."),
};
