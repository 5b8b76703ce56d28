/**
 * POSTing JSON to a model provider with bounded retries: exponential backoff with jitter drawn
 * from the trial's seeded RNG, `Retry-After` honoured, and the official SDKs' rules for what to
 * retry (408, 409, 429, 5xx, connection errors, timeouts; `x-should-retry` obeyed when present).
 * Each attempt has a deadline on the injected clock covering the whole exchange, body included,
 * and its own connection, so a reset keep-alive connection is never silently re-sent and every
 * recorded attempt is one request that reached the server. Secrets are redacted from every
 * message that leaves this module.
 *
 * @module
 */
import type { Clock } from "../core/clock.ts";
import type { Rng } from "../core/rng.ts";
import { MalformedResponse, ModelRejected, ModelUnavailable } from "./model_errors.ts";
import { type EndpointGate, throughGate } from "./endpoint_gate.ts";
import { redactText } from "./redaction.ts";

/** Bounds on retrying. */
export interface RetryPolicy {
  /** Most attempts in all (the first included). */
  maxAttempts: number;
  /** Most time spent on one call, retries and waits included, in ms. */
  maxTotalMs: number;
  /** The first backoff, in ms; it doubles per attempt. */
  baseDelayMs: number;
  /** The longest single wait, in ms. */
  maxDelayMs: number;
}

/** Five attempts within two minutes, backing off from half a second. */
export const DEFAULT_RETRY: RetryPolicy = {
  maxAttempts: 5,
  maxTotalMs: 120_000,
  baseDelayMs: 500,
  maxDelayMs: 20_000,
};

/** Ten minutes for one attempt, as the official SDKs allow (`--request-timeout` default). */
export const DEFAULT_REQUEST_TIMEOUT_MS = 600_000;

/** What a provider client needs for HTTP. */
export interface HttpDeps {
  /** Time: backoff waits, `Retry-After` dates, and the request timeout. */
  clock: Clock;
  /** Jitter. */
  rng: Rng;
  /** Retry bounds. */
  retry: RetryPolicy;
  /**
   * The longest one attempt may take, from sending the request to the last byte of the response
   * body, in ms (`--request-timeout`); no limit when absent. It runs on `clock.sleep`, so it
   * needs a clock that really waits.
   */
  requestTimeoutMs?: number;
  /** Strings never to repeat in a message (API keys), as in {@linkcode redactText}. */
  secrets: string[];
  /**
   * The endpoint's gate shared by the run's trials (`--max-connections`): each attempt holds one
   * of its slots, and a retry's back-off holds every call back. None: no limit.
   */
  gate?: EndpointGate;
  /** Hears about each retry (for the event log). */
  onRetry?: (
    retry: { attempt: number; status: number | null; message: string; waitMs: number },
  ) => void;
}

/** One JSON POST. */
export interface JsonPost {
  /** For messages: `openai`, `anthropic`. */
  provider: string;
  /** The endpoint. */
  url: string;
  /** Request headers (the key goes here, and nowhere else). */
  headers: Record<string, string>;
  /** The body, serialized as JSON. */
  body: unknown;
  /** Aborts the call and its waits. */
  signal: AbortSignal;
}

/** An attempt that failed in a way another attempt may fix. */
interface Failure {
  /** The HTTP status, or null when no status arrived. */
  status: number | null;
  /** What went wrong, redacted. */
  message: string;
  /** The wait the provider asked for, and the header that asked. */
  retryAfter?: { ms: number; header: string };
  /** The provider said not to retry (`x-should-retry: false` on a server error). */
  final?: boolean;
}

/**
 * POSTs JSON and returns the parsed response body.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { DEFAULT_RETRY, postJson } from "./_http.ts";
 * import { LogicalClock } from "../core/clock.ts";
 * import { SplitMix64 } from "../core/rng.ts";
 * const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () => Response.json({ ok: true }));
 * const body = await postJson(
 *   { provider: "p", url: `http://127.0.0.1:${server.addr.port}/`, headers: {}, body: {}, signal: new AbortController().signal },
 *   { clock: new LogicalClock(), rng: new SplitMix64(1), retry: DEFAULT_RETRY, secrets: [] },
 * );
 * await server.shutdown();
 * assert((body as { ok: boolean }).ok);
 * ```
 * @throws {ModelUnavailable} after the retries run out, or when the provider says not to retry a
 * server error; {@linkcode ModelRejected} on a status that retrying cannot fix;
 * {@linkcode MalformedResponse} when a 2xx body is not JSON; the signal's reason when it aborts.
 */
export async function postJson(post: JsonPost, deps: HttpDeps): Promise<unknown> {
  const redact = (text: string) =>
    redactText(text.replace(/(https?:\/\/)[^/@\s]*@/g, "$1"), deps.secrets);
  const started = deps.clock.monotonic();
  let queued = 0; // time spent waiting at the endpoint's gate: not the call's own
  for (let attempt = 1;; attempt++) {
    const outcome = await throughGate(
      deps.gate,
      post.signal,
      () => sendOnce(post, deps, redact),
      (ms) => queued += ms,
    );
    if (!("status" in outcome)) return outcome.body;
    const { status, message, retryAfter } = outcome;
    if (outcome.final) throw new ModelUnavailable(post.provider, status, message, attempt);
    const elapsed = deps.clock.monotonic() - started - queued;
    const backoff = Math.min(deps.retry.maxDelayMs, deps.retry.baseDelayMs * 2 ** (attempt - 1));
    const waitMs = Math.max(retryAfter?.ms ?? 0, backoff / 2 + deps.rng.nextFloat() * backoff / 2);
    if (attempt >= deps.retry.maxAttempts) {
      throw new ModelUnavailable(post.provider, status, message, attempt);
    }
    if (elapsed + waitMs > deps.retry.maxTotalMs) {
      const asked = retryAfter && elapsed + retryAfter.ms > deps.retry.maxTotalMs
        ? `; the provider asked to wait ${seconds(retryAfter.ms)} (${retryAfter.header} header), ` +
          `more than the ${seconds(deps.retry.maxTotalMs)} retry budget allows`
        : "";
      throw new ModelUnavailable(post.provider, status, message + asked, attempt);
    }
    deps.onRetry?.({ attempt, status, message, waitMs: Math.round(waitMs) });
    deps.gate?.backOff(waitMs);
    await deps.clock.sleep(waitMs, post.signal);
  }
}

/** One attempt on a connection of its own, under the request timeout. */
async function sendOnce(
  post: JsonPost,
  deps: HttpDeps,
  redact: (text: string) => string,
): Promise<{ body: unknown } | Failure> {
  const timeout = new AbortController();
  const settled = new AbortController();
  const limitMs = deps.requestTimeoutMs;
  if (limitMs !== undefined) {
    deps.clock.sleep(limitMs, settled.signal).then(() => timeout.abort(), () => {});
  }
  // No pooled connection: fetch silently re-sends a POST whose reused connection was reset.
  using client = Deno.createHttpClient({ poolMaxIdlePerHost: 0 });
  let status: number | null = null;
  try {
    const response = await fetch(post.url, {
      method: "POST",
      headers: { "content-type": "application/json", ...post.headers },
      body: JSON.stringify(post.body),
      signal: AbortSignal.any([post.signal, timeout.signal]),
      client,
    });
    status = response.status;
    const text = await response.text();
    if (response.ok) {
      try {
        return { body: JSON.parse(text) };
      } catch (error) {
        throw new MalformedResponse(
          post.provider,
          redact(`the body is not valid JSON (${(error as Error).message}): ${excerpt(text)}`),
        );
      }
    }
    const message = redact(errorMessage(text));
    const advice = response.headers.get("x-should-retry");
    const retry = advice === "true" ||
      (advice !== "false" && (status === 408 || status === 409 || status === 429 || status >= 500));
    if (!retry) {
      if (advice === "false" && (status === 429 || status >= 500)) {
        return { status, message: `${message} (x-should-retry: false)`, final: true };
      }
      throw new ModelRejected(post.provider, status, message);
    }
    return { status, message, retryAfter: retryAfter(response.headers, deps.clock) };
  } catch (error) {
    if (post.signal.aborted) throw post.signal.reason;
    if (error instanceof MalformedResponse || error instanceof ModelRejected) throw error;
    if (timeout.signal.aborted) {
      const what = status === null
        ? "no response"
        : `the response (HTTP ${status}) did not finish arriving`;
      return { status: null, message: `${what} within ${seconds(limitMs!)} (--request-timeout)` };
    }
    return { status: null, message: redact(`connection failed: ${causes(error)}`) };
  } finally {
    settled.abort();
  }
}

/** `Retry-After` (seconds or an HTTP date) or `retry-after-ms`, in ms, and which header. */
function retryAfter(headers: Headers, clock: Clock): Failure["retryAfter"] {
  const ms = Number(headers.get("retry-after-ms"));
  if (headers.has("retry-after-ms") && Number.isFinite(ms) && ms >= 0) {
    return { ms, header: "retry-after-ms" };
  }
  const value = headers.get("retry-after");
  if (value === null) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) {
    return { ms: seconds * 1000, header: "retry-after" };
  }
  const date = Date.parse(value);
  return Number.isNaN(date)
    ? undefined
    : { ms: Math.max(0, date - clock.now()), header: "retry-after" };
}

/** An error's message followed by its causes' (fetch puts "refused" or "reset" in the cause). */
function causes(error: unknown): string {
  const messages: string[] = [];
  for (let current = error; current instanceof Error && messages.length < 5;) {
    messages.push(current.message);
    current = current.cause;
  }
  return messages.join(": ") || String(error);
}

function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(3))} s`;
}

/** The provider's own error message (OpenAI and Anthropic both use `error.message`). */
function errorMessage(text: string): string {
  try {
    const body = JSON.parse(text) as { error?: { message?: unknown } | string; message?: unknown };
    if (typeof body.error === "object" && typeof body.error?.message === "string") {
      return body.error.message;
    }
    if (typeof body.error === "string") return body.error;
    if (typeof body.message === "string") return body.message;
  } catch {
    // Not JSON: show the text itself.
  }
  return excerpt(text) || "(empty body)";
}

function excerpt(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > 300 ? `${flat.slice(0, 300)}…` : flat;
}
