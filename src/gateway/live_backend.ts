/**
 * The live backend: the agent's request body goes to the upstream provider with the
 * real key in its header (unchanged, but for a lower output cap where the trial's budget affords
 * less, and a Chat Completions stream asked for its usage, which is taken out of the answer again) (the agent only ever holds the trial's dummy key) and, for Anthropic,
 * the beta features the agent asked for (`anthropic-beta`), and the upstream's
 * status, content type and body come back to the agent, a stream read whole first. The real key
 * is redacted from every answer and every error message.
 *
 * Transient failures are retried here, as the provider clients retry them (`_http.ts`): 408,
 * 409, 429, 5xx, connection errors and attempts past `--request-timeout`, with backoff on the
 * injected clock and `Retry-After` honoured. When the retries run out the trial fails as
 * infrastructure (`ModelUnavailable`), never as the agent's fault. A 401 or 403 says Verdict's
 * key is refused, which the agent cannot fix (`ModelRejected`). A 2xx whose body is not a JSON
 * object, or whose event stream stops before its end event, is the provider's failure too
 * (`MalformedResponse`, not retried: the provider charged for it, as Verdict's loop does). Any
 * other status (a 400 for a request the provider will not take) is the agent's answer and reaches
 * it as sent.
 *
 * @module
 */
import type { HttpDeps } from "../model/_http.ts";
import { throughGate } from "../model/endpoint_gate.ts";
import { ANTHROPIC_VERSION } from "../model/anthropic.ts";
import { MalformedResponse, ModelRejected, ModelUnavailable } from "../model/model_errors.ts";
import { headerSecrets } from "../model/provider_options.ts";
import { redactText, urlCredentials } from "../model/redaction.ts";
import { answerProblem } from "./answer_problem.ts";
import { upstreamBody, withoutUsageChunks } from "./_output_cap.ts";
import { answerUsage } from "./answer_usage.ts";
import type { GatewayAnswer, GatewayBackend, GatewayCall, WireFormat } from "./gateway.ts";
import { WIRE_CODECS } from "./handler.ts";

/** The upstream a live gateway forwards to. */
export interface LiveUpstream {
  /** The provider: `openai` (Chat Completions, Responses) or `anthropic` (Messages). */
  provider: "openai" | "anthropic";
  /** The model of `--model`, for the backend's spec. */
  model: string;
  /** The base URL: ending in `/v1` for OpenAI, the host root for Anthropic. */
  baseUrl: string;
  /** The real API key (sent upstream only; empty for a local server that takes none). */
  apiKey: string;
  /**
   * `--header K:V`, by lower-case name: on every forwarded request, over Verdict's own headers;
   * an `anthropic-beta` joins the betas the agent asked for.
   */
  headers?: Record<string, string>;
}

/** An attempt that another attempt may fix. */
interface Transient {
  status: number | null;
  message: string;
  retryAfterMs?: number;
}

/**
 * The upstream URL of a format, or null when the provider does not speak it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { upstreamUrl } from "./live_backend.ts";
 * assert.equal(upstreamUrl("openai", "http://h/v1/", "responses"), "http://h/v1/responses");
 * assert.equal(upstreamUrl("anthropic", "http://h", "messages"), "http://h/v1/messages");
 * assert.equal(upstreamUrl("anthropic", "http://h", "responses"), null);
 * ```
 */
export function upstreamUrl(
  provider: LiveUpstream["provider"],
  baseUrl: string,
  format: WireFormat,
): string | null {
  const base = baseUrl.replace(/\/+$/, "");
  if (provider === "anthropic") return format === "messages" ? `${base}/v1/messages` : null;
  if (format === "chat_completions") return `${base}/chat/completions`;
  return format === "responses" ? `${base}/responses` : null;
}

/**
 * A backend that forwards each call to the upstream.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { liveBackend } from "./live_backend.ts";
 * import { DEFAULT_RETRY } from "../model/_http.ts";
 * import { LogicalClock } from "../core/clock.ts";
 * import { SplitMix64 } from "../core/rng.ts";
 * const backend = liveBackend(
 *   { provider: "openai", model: "gpt-4o", baseUrl: "http://127.0.0.1:9/v1", apiKey: "" },
 *   { clock: new LogicalClock(), rng: new SplitMix64(1), retry: DEFAULT_RETRY, secrets: [] },
 * );
 * assert.equal(backend.spec, "openai:gpt-4o");
 * ```
 */
export function liveBackend(upstream: LiveUpstream, http: HttpDeps): GatewayBackend {
  const secrets = [
    ...http.secrets,
    upstream.apiKey,
    ...urlCredentials(upstream.baseUrl),
    ...headerSecrets(upstream.headers ?? {}),
  ];
  const redact = (text: string) => redactText(text, secrets);
  const spec = `${upstream.provider}:${upstream.model}`;
  return {
    spec,
    async answer(call, signal) {
      const url = upstreamUrl(upstream.provider, upstream.baseUrl, call.format);
      if (url === null) {
        return WIRE_CODECS[call.format].error(
          404,
          "not_found",
          `this gateway forwards to ${spec}, which does not speak ${call.format}`,
        );
      }
      const headers = upstreamHeaders(upstream, call);
      // Every call is metered: a Chat Completions stream that did not ask for its usage is made
      // to, and the usage is taken out of what the agent receives.
      const askUsage = call.format === "chat_completions" && call.stream && !call.streamUsage;
      const sent = upstreamBody(call.format, call.body, { cap: call.outputCap, askUsage });
      const started = http.clock.monotonic();
      let queued = 0; // time spent waiting at the endpoint's gate: not the call's own
      for (let attempt = 1;; attempt++) {
        const outcome = await throughGate(
          http.gate,
          signal,
          () => sendOnce(url, headers, { ...call, body: sent }, signal, http, redact),
          (ms) => queued += ms,
        );
        if ("answer" in outcome) {
          const { status, contentType, body } = outcome.answer;
          if (status === 401 || status === 403) {
            throw new ModelRejected(upstream.provider, status, excerpt(body));
          }
          // A refusal of the cap the gateway lowered (to what the budget affords) is not the
          // agent's to answer for; any other 400 is, changed body or not: an agent must not turn
          // its own bad request into an infrastructure error by asking for a large cap.
          if (status === 400 && call.outputCap !== undefined && CAP_FIELDS.test(body)) {
            throw new ModelRejected(
              upstream.provider,
              status,
              `${excerpt(body)} (the gateway had lowered the output cap to ${call.outputCap})`,
            );
          }
          const problem = status < 300 ? answerProblem(call.format, contentType, body) : null;
          if (problem !== null) throw new MalformedResponse(upstream.provider, problem, true);
          return askUsage ? { ...outcome.answer, body: withoutUsageChunks(body) } : outcome.answer;
        }
        const { status, message } = outcome;
        const backoff = Math.min(
          http.retry.maxDelayMs,
          http.retry.baseDelayMs * 2 ** (attempt - 1),
        );
        const waitMs = Math.max(
          outcome.retryAfterMs ?? 0,
          backoff / 2 + http.rng.nextFloat() * backoff / 2,
        );
        const elapsed = http.clock.monotonic() - started - queued;
        if (attempt >= http.retry.maxAttempts || elapsed + waitMs > http.retry.maxTotalMs) {
          throw new ModelUnavailable(upstream.provider, status, message, attempt);
        }
        http.onRetry?.({ attempt, status, message, waitMs: Math.round(waitMs) });
        http.gate?.backOff(waitMs);
        await http.clock.sleep(waitMs, signal);
      }
    },
  };
}

/**
 * The headers of a forwarded call: Verdict's own (the real key, never the agent's dummy one),
 * the betas the agent asked for joined with `--header anthropic-beta`, and `--header` over all.
 */
function upstreamHeaders(upstream: LiveUpstream, call: GatewayCall): Record<string, string> {
  const extra = upstream.headers ?? {};
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: call.stream ? "text/event-stream" : "application/json",
    ...(upstream.provider === "anthropic"
      ? {
        "x-api-key": upstream.apiKey,
        "anthropic-version": ANTHROPIC_VERSION,
        ...(call.betas ? { "anthropic-beta": call.betas } : {}),
      }
      : upstream.apiKey
      ? { authorization: `Bearer ${upstream.apiKey}` }
      : {}),
    ...extra,
  };
  const betas = [call.betas, extra["anthropic-beta"]].filter(Boolean);
  if (upstream.provider === "anthropic" && betas.length > 0) {
    headers["anthropic-beta"] = betas.join(",");
  }
  return headers;
}

/** The fields the gateway rewrites when it lowers a cap, as a provider's 400 names them. */
const CAP_FIELDS = /max_tokens|max_completion_tokens|max_output_tokens|budget_tokens/;

/** One attempt on a connection of its own, under the request timeout. */
async function sendOnce(
  url: string,
  headers: Record<string, string>,
  call: GatewayCall,
  signal: AbortSignal,
  http: HttpDeps,
  redact: (text: string) => string,
): Promise<{ answer: GatewayAnswer } | Transient> {
  const timeout = new AbortController();
  const settled = new AbortController();
  const limitMs = http.requestTimeoutMs;
  if (limitMs !== undefined) {
    http.clock.sleep(limitMs, settled.signal).then(() => timeout.abort(), () => {});
  }
  // No pooled connection: fetch silently re-sends a POST whose reused connection was reset.
  using client = Deno.createHttpClient({ poolMaxIdlePerHost: 0 });
  let status: number | null = null;
  try {
    const response = await fetch(url, {
      method: "POST",
      headers,
      body: call.body,
      signal: AbortSignal.any([signal, timeout.signal]),
      client,
    });
    status = response.status;
    const body = redact(await response.text());
    const advice = response.headers.get("x-should-retry");
    const transient = advice === "true" ||
      (advice !== "false" && (status === 408 || status === 409 || status === 429 || status >= 500));
    if (transient) {
      return { status, message: excerpt(body), retryAfterMs: retryAfterMs(response.headers) };
    }
    const contentType = response.headers.get("content-type") ?? "application/json";
    const ok = status >= 200 && status < 300;
    return {
      answer: {
        status,
        contentType,
        body,
        usage: ok ? answerUsage(call.format, contentType, body) : null,
      },
    };
  } catch (error) {
    if (signal.aborted) throw signal.reason;
    if (timeout.signal.aborted) {
      const what = status === null
        ? "no response"
        : `the response (HTTP ${status}) did not finish arriving`;
      return { status: null, message: `${what} within ${limitMs! / 1000} s (--request-timeout)` };
    }
    return { status: null, message: redact(`connection failed: ${(error as Error).message}`) };
  } finally {
    settled.abort();
  }
}

/** `retry-after-ms` or `Retry-After` in seconds (an HTTP date is left to the backoff). */
function retryAfterMs(headers: Headers): number | undefined {
  for (const [name, scale] of [["retry-after-ms", 1], ["retry-after", 1000]] as const) {
    const value = Number(headers.get(name) ?? Number.NaN);
    if (Number.isFinite(value) && value >= 0) return value * scale;
  }
  return undefined;
}

function excerpt(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > 300 ? `${flat.slice(0, 300)}…` : flat || "(empty body)";
}
