/**
 * What each wire format provides the gateway: reading an agent's request body into Verdict's own
 * form, rendering a model's answer as the format's JSON or its event stream, and the format's
 * error answer.
 *
 * @module
 */
import type { ModelRequest, ModelResponse } from "../model/model.ts";
import type { GatewayAnswer, GatewayCall, WireFormat } from "./gateway.ts";

/** An agent's request body as read by a codec. */
export interface WireRequest {
  /** The model the agent named. */
  model: string;
  /** Whether it asked for a stream. */
  stream: boolean;
  /** For a Chat Completions stream: whether it asked for a usage chunk. */
  streamUsage: boolean;
  /** The request in Verdict's form. */
  request: ModelRequest;
}

/** The kinds of error answer the gateway gives. */
export type WireErrorKind = "invalid_request" | "authentication" | "not_found" | "upstream";

/** One wire format. */
export interface WireCodec {
  /** Its name. */
  readonly format: WireFormat;
  /**
   * Reads a parsed request body.
   *
   * @throws {WireRequestError} naming the field that is missing or malformed.
   */
  read(body: unknown): WireRequest;
  /** Renders a model's answer to a call, as JSON or, when the call streams, as its event stream. */
  render(call: GatewayCall, response: ModelResponse): GatewayAnswer;
  /** The format's error answer (usage null). */
  error(status: number, kind: WireErrorKind, message: string, field?: string): GatewayAnswer;
}

/** The content type of a JSON answer. */
export const JSON_TYPE = "application/json";

/** The content type of an event stream. */
export const SSE_TYPE = "text/event-stream";

/** The output budget of a request that names none (Chat Completions and Responses allow that). */
export const DEFAULT_MAX_OUTPUT_TOKENS = 4096;
