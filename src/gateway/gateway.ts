/**
 * The model gateway's contract: what an agent's HTTP call becomes inside Verdict, and what answers
 * it. A gateway serves one trial. It reads a request in one of three wire formats, checks the
 * trial's dummy key, asks a {@linkcode GatewayBackend} (scripted, live or replay) for the answer,
 * and hands both to the trial's record before the agent sees the answer.
 *
 * @module
 */
import type { ModelRequest, Usage } from "../model/model.ts";

/** The wire formats the gateway speaks. */
export type WireFormat = "chat_completions" | "responses" | "messages";

/** One model call an agent made through the gateway. */
export interface GatewayCall {
  /** Its number in the trial, from 1. */
  number: number;
  /** The wire format, from the path (`/v1/chat/completions`, `/v1/responses`, `/v1/messages`). */
  format: WireFormat;
  /** Whether the agent asked for a stream (SSE). */
  stream: boolean;
  /**
   * For a Chat Completions stream: whether the agent asked for a closing usage chunk
   * (`stream_options.include_usage`); absent means no.
   */
  streamUsage?: boolean;
  /** The model the agent named in its request. */
  model: string;
  /** The request body exactly as the agent sent it. */
  body: string;
  /**
   * For Anthropic Messages: the beta features the agent asked for (its `anthropic-beta` header),
   * which the live backend passes on with the body that uses them; absent when none.
   */
  betas?: string;
  /** The request read into Verdict's own form (messages, tools, system prompt, output budget). */
  request: ModelRequest;
  /**
   * Set when the body was past what the trial's budget could admit, so it was never read into
   * memory: its SHA-256 and size; `body` then holds only its first 1,024 bytes, and `request` is
   * empty. The call is refused.
   */
  unread?: { sha256: string; bytes: number };
  /**
   * The output cap the agent asked for, null when it asked for none; absent when not read yet (a
   * budget then reads it from the body).
   */
  askedOutputCap?: number | null;
  /**
   * The most output tokens the trial's budget affords this call, when that is less than the agent
   * asked for or it asked for no cap: the live backend sends this cap upstream instead. Absent
   * when the agent's own cap fits.
   */
  outputCap?: number;
}

/** What answers a call: an HTTP answer in the call's wire format, as the agent receives it. */
export interface GatewayAnswer {
  /** The HTTP status. */
  status: number;
  /** The content type (`application/json`, or `text/event-stream` for a stream). */
  contentType: string;
  /** The body exactly as sent to the agent (for a stream, the whole event stream). */
  body: string;
  /** Tokens the answer used, from its usage block; null when it has none (an error). */
  usage: Usage | null;
  /** Headers sent with it besides its content type (not recorded). */
  headers?: Readonly<Record<string, string>>;
  /**
   * Set on a refusal the gateway made itself (a budget): the call is then recorded by its body's
   * hash and size with a bounded excerpt, not whole, since no model ever saw it.
   */
  refusal?: true;
}

/** Answers the calls of one trial: scripted, live (an upstream provider) or replay. */
export interface GatewayBackend {
  /** What the record names the backend by, such as `scripted` or `openai:gpt-4o`. */
  readonly spec: string;
  /**
   * The largest body a call could now be admitted with; a larger one is surely refused, so the
   * gateway need not read it into memory. Absent: any size.
   */
  admissibleBytes?(): number;
  /**
   * Answers one call.
   *
   * @throws {InfrastructureError} when an upstream cannot be reached in time (the trial's fault is
   * then infrastructure's, never the agent's).
   */
  answer(call: GatewayCall, signal: AbortSignal): Promise<GatewayAnswer>;
}
