/**
 * How model calls fail: the provider stayed unavailable after retries, answered with something
 * that is not a valid response, or refused the request with a status that retrying cannot fix.
 * Each carries the provider's status or message, never the API key.
 *
 * @module
 */
import { InfrastructureError } from "../core/errors.ts";

/**
 * The endpoint kept failing (429, 5xx, connection errors) until the retries ran out.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ModelUnavailable } from "./model_errors.ts";
 * const error = new ModelUnavailable("openai", 500, "server exploded", 5);
 * assert(error.message.includes("HTTP 500") && error.exitCode === 3);
 * ```
 */
export class ModelUnavailable extends InfrastructureError {
  /** The last HTTP status, or null for a connection error. */
  readonly status: number | null;

  /** Makes the error. */
  constructor(provider: string, status: number | null, message: string, attempts: number) {
    super(
      `${provider} endpoint unavailable after ${attempts} attempt${attempts === 1 ? "" : "s"}: ` +
        (status === null ? message : `HTTP ${status}: ${message}`),
    );
    this.status = status;
  }
}

/**
 * The provider answered, but not with a response Verdict can read: bad JSON or a missing field.
 * (A non-retryable error status is a `ModelRejected`.)
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MalformedResponse } from "./model_errors.ts";
 * const error = new MalformedResponse("anthropic", "missing content");
 * assert(error.message === "malformed response from anthropic: missing content");
 * ```
 */
export class MalformedResponse extends InfrastructureError {
  /**
   * Whether the provider answered with success (2xx), and so may have billed the call, even
   * though its answer cannot be read: a budget then counts the call at its worst case.
   */
  readonly billed: boolean;

  /** Makes the error. */
  constructor(provider: string, problem: string, billed = false) {
    super(`malformed response from ${provider}: ${problem}`);
    this.billed = billed;
  }
}

/**
 * The provider refused the request as such (400, 401, 403, 404, ...): retrying cannot help.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ModelRejected } from "./model_errors.ts";
 * assert(new ModelRejected("openai", 401, "bad key").message.includes("HTTP 401"));
 * ```
 */
export class ModelRejected extends InfrastructureError {
  /** The HTTP status. */
  readonly status: number;

  /** Makes the error. */
  constructor(provider: string, status: number, message: string) {
    super(`${provider} rejected the request: HTTP ${status}: ${message}`);
    this.status = status;
  }
}
