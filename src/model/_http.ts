/**
 * POSTing JSON to a model provider with bounded retries: exponential backoff with jitter drawn
 * from the trial's seeded RNG, `Retry-After` honoured, 429, 5xx and connection errors retried,
 * everything else classified. Secrets are redacted from every message that leaves this module.
 *
 * @module
 */
import type { Clock } from "../core/clock.ts";
import type { Rng } from "../core/rng.ts";
import { MalformedResponse, ModelRejected, ModelUnavailable } from "./model_errors.ts";

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

/** What a provider client needs for HTTP. */
export interface HttpDeps {
  /** Time, for backoff waits and `Retry-After` dates. */
  clock: Clock;
  /** Jitter. */
  rng: Rng;
  /** Retry bounds. */
  retry: RetryPolicy;
  /** Strings never to repeat in a message (API keys). */
  secrets: string[];
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

/**
 * POSTs JSON and returns the parsed response body.
 *
 * @throws {ModelUnavailable} after the retries run out; {@linkcode ModelRejected} on a
 * non-retryable status; {@linkcode MalformedResponse} when a 2xx body is not JSON; the signal's
 * reason when it aborts.
 */
export async function postJson(post: JsonPost, deps: HttpDeps): Promise<unknown> {
  const redact = (text: string) =>
    deps.secrets.reduce((out, secret) => secret ? out.replaceAll(secret, "[redacted]") : out, text);
  const started = deps.clock.monotonic();
  for (let attempt = 1;; attempt++) {
    let status: number | null = null;
    let message: string;
    let retryAfterMs: number | undefined;
    try {
      const response = await fetch(post.url, {
        method: "POST",
        headers: { "content-type": "application/json", ...post.headers },
        body: JSON.stringify(post.body),
        signal: post.signal,
      });
      status = response.status;
      const text = await response.text();
      if (response.ok) {
        try {
          return JSON.parse(text);
        } catch (error) {
          throw new MalformedResponse(
            post.provider,
            redact(`the body is not valid JSON (${(error as Error).message}): ${excerpt(text)}`),
          );
        }
      }
      message = redact(errorMessage(text));
      if (status !== 429 && status < 500) throw new ModelRejected(post.provider, status, message);
      retryAfterMs = retryAfter(response.headers, deps.clock);
    } catch (error) {
      if (post.signal.aborted) throw post.signal.reason;
      if (error instanceof MalformedResponse || error instanceof ModelRejected) throw error;
      message = redact(`connection failed: ${(error as Error).message}`); // retried below
    }
    const elapsed = deps.clock.monotonic() - started;
    const backoff = Math.min(deps.retry.maxDelayMs, deps.retry.baseDelayMs * 2 ** (attempt - 1));
    const waitMs = Math.max(retryAfterMs ?? 0, backoff / 2 + deps.rng.nextFloat() * backoff / 2);
    if (attempt >= deps.retry.maxAttempts || elapsed + waitMs > deps.retry.maxTotalMs) {
      throw new ModelUnavailable(post.provider, status, message, attempt);
    }
    deps.onRetry?.({ attempt, status, message, waitMs: Math.round(waitMs) });
    await deps.clock.sleep(waitMs, post.signal);
  }
}

/** `Retry-After` (seconds or an HTTP date) or `retry-after-ms`, in ms. */
function retryAfter(headers: Headers, clock: Clock): number | undefined {
  const ms = Number(headers.get("retry-after-ms"));
  if (headers.has("retry-after-ms") && Number.isFinite(ms) && ms >= 0) return ms;
  const value = headers.get("retry-after");
  if (value === null) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - clock.now());
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
