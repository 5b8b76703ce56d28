/**
 * The gateway's HTTP handler, transport-agnostic (`(Request) => Response`, served on TCP or a
 * Unix socket by whoever holds it): routes by path to the wire format, checks the trial's dummy
 * key, numbers the calls from 1, asks the backend, and hands each exchange to the trial's hook
 * before the agent sees the answer. Every refusal is an answer in the format's own error shape:
 * 404 for an unknown path, 405 for a method other than POST, 401 for a wrong or missing key, 400
 * naming the field for a malformed body, 502 when the backend fails (with `x-should-retry:
 * false`: the backend did the retrying), 503 once the trial no longer accepts calls (its agent
 * stopped).
 *
 * @module
 */
import type { GatewayAnswer, GatewayBackend, GatewayCall, WireFormat } from "./gateway.ts";
import { chatCompletions } from "./chat_completions.ts";
import { messages } from "./messages.ts";
import { responses } from "./responses.ts";
import type { WireCodec } from "./wire_codec.ts";
import { WireRequestError } from "./_wire_fields.ts";
import { outputCapOf } from "./_output_cap.ts";
import { readRequestBody } from "./_request_body.ts";

/** The paths the gateway answers, and their formats. */
export const GATEWAY_ROUTES: Readonly<Record<string, WireCodec>> = {
  "/v1/chat/completions": chatCompletions,
  "/v1/responses": responses,
  "/v1/messages": messages,
};

/** The codec of each wire format. */
export const WIRE_CODECS: Readonly<Record<WireFormat, WireCodec>> = {
  chat_completions: chatCompletions,
  responses,
  messages,
};

/**
 * Hears each exchange before the agent sees the answer, and may replace the answer (to refuse the
 * call over a budget, say, with an error in the call's format: `WIRE_CODECS[call.format].error`).
 * `failure` is what the backend threw, when it threw; the answer is then a 502 error.
 */
export type ExchangeHook = (
  call: GatewayCall,
  answer: GatewayAnswer,
  failure?: unknown,
) => GatewayAnswer | void | Promise<GatewayAnswer | void>;

/** What a gateway handler is made from. */
export interface GatewayHandlerOptions {
  /** Answers the calls. */
  backend: GatewayBackend;
  /** The trial's dummy key: `Authorization: Bearer KEY` (OpenAI), `x-api-key` (Anthropic). */
  key: string;
  /** Hears each exchange (to record it); its returned answer, if any, replaces the backend's. */
  onExchange?: ExchangeHook;
  /**
   * Whether calls are still answered; once false, each call is refused (503 in its format, not
   * numbered, not heard). Default: always.
   */
  accepting?: () => boolean;
}

/**
 * An HTTP handler. `signal` aborts the backend's work (the trial's deadline, or the agent gone);
 * without one, a call runs to its end. (`request.signal` is not read: under `Deno.serve` it also
 * fires once a response is delivered, and reading it prints a deprecation warning.)
 */
export type GatewayHandler = (request: Request, signal?: AbortSignal) => Promise<Response>;

const NEVER: AbortSignal = new AbortController().signal;

/**
 * The gateway's handler for one trial.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { gatewayHandler } from "./handler.ts";
 * const handler = gatewayHandler({
 *   key: "dummy",
 *   backend: { spec: "none", answer: () => Promise.reject(new Error("unused")) },
 * });
 * const refused = await handler(new Request("http://gateway/v1/chat/completions", {
 *   method: "POST", body: "{}", headers: { authorization: "Bearer wrong" },
 * }));
 * assert(refused.status === 401);
 * await refused.body?.cancel();
 * ```
 */
export function gatewayHandler(options: GatewayHandlerOptions): GatewayHandler {
  let calls = 0;
  return async (request, signal = NEVER) => {
    const path = new URL(request.url).pathname.replace(/\/+$/, "");
    const codec = GATEWAY_ROUTES[path];
    if (codec === undefined) {
      await request.body?.cancel();
      const shape = path.startsWith("/v1/messages") ? messages : chatCompletions;
      return toResponse(shape.error(404, "not_found", `the gateway does not serve ${path}`));
    }
    if (request.method !== "POST") {
      await request.body?.cancel();
      return toResponse(
        codec.error(405, "invalid_request", `${path} takes POST, not ${request.method}`),
      );
    }
    if (presentedKey(codec, request.headers) !== options.key) {
      await request.body?.cancel();
      return toResponse(codec.error(401, "authentication", "invalid or missing API key"));
    }
    if (options.accepting?.() === false) {
      await request.body?.cancel();
      return toResponse(stopped(codec));
    }
    const body = await readRequestBody(
      request,
      MAX_REQUEST_BYTES,
      options.backend.admissibleBytes?.() ?? Number.POSITIVE_INFINITY,
    );
    if (body.kind === "too_large") {
      return toResponse(
        codec.error(
          413,
          "invalid_request",
          `the request body is larger than ${MAX_REQUEST_BYTES / 1024 / 1024} MiB`,
          "body",
        ),
      );
    }
    // Checked again: the agent may have stopped while a slow body arrived.
    if (options.accepting?.() === false) return toResponse(stopped(codec));
    const call = body.kind === "unread"
      ? unreadCall(++calls, codec, body)
      : readCall(codec, body.text, request.headers, () => ++calls);
    if ("status" in call) return toResponse(call);
    let answer: GatewayAnswer;
    let failure: unknown;
    try {
      answer = await options.backend.answer(call, signal);
    } catch (error) {
      failure = error;
      answer = {
        ...codec.error(502, "upstream", `the model backend failed: ${describe(error)}`),
        headers: NO_RETRY,
      };
    }
    const replacement = await options.onExchange?.(call, answer, failure);
    return toResponse(replacement ?? answer);
  };
}

/** The answer to a call made after the agent stopped. */
function stopped(codec: WireCodec): GatewayAnswer {
  return {
    ...codec.error(503, "upstream", "the agent has stopped: this gateway answers no more calls"),
    headers: NO_RETRY,
  };
}

/** A call read from its whole body (numbered by `next` once it reads), or the 400 naming why not. */
function readCall(
  codec: WireCodec,
  body: string,
  headers: Headers,
  next: () => number,
): GatewayCall | GatewayAnswer {
  let read;
  let askedOutputCap;
  try {
    const parsed = JSON.parse(body);
    read = codec.read(parsed);
    askedOutputCap = outputCapOf(codec.format, parsed);
  } catch (error) {
    const field = error instanceof WireRequestError ? error.field : "body";
    const message = error instanceof WireRequestError ? error.message : "body is not valid JSON";
    return codec.error(400, "invalid_request", message, field);
  }
  const betas = codec.format === "messages" ? headers.get("anthropic-beta") : null;
  return {
    number: next(),
    format: codec.format,
    stream: read.stream,
    ...(read.streamUsage ? { streamUsage: true } : {}),
    model: read.model,
    body,
    request: read.request,
    askedOutputCap,
    ...(betas ? { betas } : {}),
  };
}

/** A call whose body was too large for the budget to admit, so it was never read. */
function unreadCall(
  number: number,
  codec: WireCodec,
  body: { bytes: number; sha256: string; excerpt: string },
): GatewayCall {
  return {
    number,
    format: codec.format,
    stream: false,
    model: "",
    body: body.excerpt,
    request: { system: "", messages: [], tools: [], maxOutputTokens: 1 },
    askedOutputCap: null,
    unread: { sha256: body.sha256, bytes: body.bytes },
  };
}

/**
 * The largest request body the gateway reads, 32 MiB: far past any model's context window, and a
 * bound on what an agent can make Verdict's process hold.
 */
export const MAX_REQUEST_BYTES = 32 * 1024 * 1024;

/** The key the request presents: a bearer token, or (Anthropic) `x-api-key` first. */
function presentedKey(codec: WireCodec, headers: Headers): string | null {
  const bearer = headers.get("authorization")?.match(/^Bearer\s+(.+)$/i)?.[1] ?? null;
  return codec.format === "messages" ? headers.get("x-api-key") ?? bearer : bearer;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Sent with the answer to a call the backend failed: the backend has retried already (the live
 * one, up to its limit), so a client must not multiply the attempts. Both official SDKs obey it.
 */
const NO_RETRY: Readonly<Record<string, string>> = { "x-should-retry": "false" };

function toResponse(answer: GatewayAnswer): Response {
  return new Response(answer.body, {
    status: answer.status,
    headers: {
      ...answer.headers,
      "content-type": answer.contentType,
      ...(answer.contentType === "text/event-stream" ? { "cache-control": "no-cache" } : {}),
    },
  });
}
