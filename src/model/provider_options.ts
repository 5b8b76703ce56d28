/**
 * The provider options a user chooses for a real model (`--temperature`, `--max-output-tokens`,
 * `--reasoning-effort`, `--header K:V`, `--retries`): checked against the provider and the model
 * before any call, and turned into what each part needs: the request's parameters (recorded and
 * fingerprinted, secret header values redacted), the headers on the wire, the retry policy.
 *
 * @module
 */
import { UsageError } from "../core/errors.ts";
import { DEFAULT_RETRY, type RetryPolicy } from "./_http.ts";
import type { RequestParameters } from "./model.ts";
import { openAiFamily } from "./openai_family.ts";
import { REDACTED, urlCredentials } from "./redaction.ts";

/** A level of `--reasoning-effort`. */
export type ReasoningEffort = "low" | "medium" | "high";

/** The levels `--reasoning-effort` takes. */
export const REASONING_EFFORTS: readonly ReasoningEffort[] = ["low", "medium", "high"];

/** Retries after the first attempt when `--retries` is not given. */
export const DEFAULT_RETRIES = DEFAULT_RETRY.maxAttempts - 1;

/** The most `--retries` takes. */
export const MAX_RETRIES = 20;

/** The highest temperature each provider takes. */
export const MAX_TEMPERATURE = { openai: 2, anthropic: 1 } as const;

/** What the user chose; every field absent means the provider's default. */
export interface ProviderOptions {
  /** `--temperature`. */
  temperature?: number;
  /** `--max-output-tokens`: replaces each task's `context.reserve_output_tokens`. */
  maxOutputTokens?: number;
  /** `--reasoning-effort`. */
  reasoningEffort?: ReasoningEffort;
  /** `--header K:V`, by lower-case name, with their real values. */
  headers?: Record<string, string>;
  /** `--retries`: attempts after the first. */
  retries?: number;
  /**
   * `--max-connections`: most calls out at once to the endpoint, over all the run's trials, with
   * a back-off they share. A transport setting: not part of the experiment, not recorded.
   */
  maxConnections?: number;
}

/** A header name as HTTP allows it (a token). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** Names that carry credentials: their values are never recorded. */
const SECRET_HEADER = /auth|cookie|key|token|secret|passw|credential|signature|session/i;

/**
 * Parses `--header K:V` values into headers by lower-case name.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseHeaders } from "./provider_options.ts";
 * assert.deepEqual(parseHeaders(["Anthropic-Beta: a,b"]), { "anthropic-beta": "a,b" });
 * ```
 * @throws {UsageError} for a value without a colon, a bad name, a line break or a name given twice.
 */
export function parseHeaders(texts: readonly string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const text of texts) {
    const colon = text.indexOf(":");
    const name = text.slice(0, colon).trim().toLowerCase();
    const value = text.slice(colon + 1).trim();
    if (colon === -1 || !HEADER_NAME.test(name)) {
      throw new UsageError(
        `--header ${JSON.stringify(text)} is not NAME:VALUE with a header name before the ` +
          `colon; write it like --header 'anthropic-beta: BETA'`,
      );
    }
    if (/[\0\r\n]/.test(value)) {
      throw new UsageError(`--header ${name}: the value holds a line break; pass it on one line`);
    }
    const unsendable = [...value].find((char) => !headerCharacter(char));
    if (unsendable !== undefined) {
      throw new UsageError(
        `--header ${name}: the value holds ${JSON.stringify(unsendable)}, which an HTTP header ` +
          `cannot carry; use printable ASCII (percent-encode anything else)`,
      );
    }
    if (name in headers) {
      throw new UsageError(
        `--header ${name} is given twice; pass it once, with the values joined by commas`,
      );
    }
    headers[name] = value;
  }
  return headers;
}

// What a header value may hold (RFC 9110's field-vchar, space and tab), as fetch sends it: bytes,
// so nothing past U+00FF.
function headerCharacter(char: string): boolean {
  const code = char.codePointAt(0)!;
  return code === 0x09 || (code >= 0x20 && code <= 0x7e) || (code >= 0x80 && code <= 0xff);
}

/**
 * Whether a header's name says it carries a credential (`authorization`, `x-api-key`,
 * `cookie`, `x-auth-token`, ...): its value is redacted wherever it is recorded.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isSecretHeader } from "./provider_options.ts";
 * assert(isSecretHeader("Authorization") && !isSecretHeader("anthropic-beta"));
 * ```
 */
export function isSecretHeader(name: string): boolean {
  return SECRET_HEADER.test(name);
}

/**
 * Headers as recorded: a secret header's value replaced with `[redacted]`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { recordedHeaders } from "./provider_options.ts";
 * assert.deepEqual(recordedHeaders({ authorization: "Bearer x", "x-team": "a" }),
 *   { authorization: "[redacted]", "x-team": "a" });
 * ```
 */
export function recordedHeaders(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers).map(([name, value]) => [name, isSecretHeader(name) ? REDACTED : value]),
  );
}

/**
 * The values of the secret headers: strings never to repeat (see `redaction.ts`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { headerSecrets } from "./provider_options.ts";
 * assert.deepEqual(headerSecrets({ "x-api-key": "k-123456789", "x-team": "a" }), ["k-123456789"]);
 * ```
 */
export function headerSecrets(headers: Record<string, string>): string[] {
  return Object.entries(headers).filter(([name]) => isSecretHeader(name)).map(([, value]) => value);
}

/**
 * Every string a provider client must never repeat in a message or a record: the secrets it was
 * given, its API key, credentials in its base URL, and the values of credential headers.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { endpointSecrets } from "./provider_options.ts";
 * const headers = { "x-token": "t0ken", "x-team": "qa" };
 * const secrets = endpointSecrets(["s"], { apiKey: "k", baseUrl: "http://u:pw@host", headers });
 * assert(["s", "k", "pw", "t0ken"].every((secret) => secrets.includes(secret)));
 * assert(!secrets.includes("qa"));
 * ```
 */
export function endpointSecrets(
  known: readonly string[],
  endpoint: { apiKey: string; baseUrl: string; headers?: Record<string, string> },
): string[] {
  return [
    ...known,
    endpoint.apiKey,
    ...urlCredentials(endpoint.baseUrl),
    ...headerSecrets(endpoint.headers ?? {}),
  ];
}

/**
 * The request parameters the options make (what the fingerprint and the record hold), or
 * undefined when there are none, so requests made without options keep their fingerprints.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { requestParameters } from "./provider_options.ts";
 * assert.deepEqual(requestParameters({ temperature: 0.2 }), { temperature: 0.2 });
 * assert.equal(requestParameters({ retries: 2 }), undefined);
 * ```
 */
export function requestParameters(options: ProviderOptions): RequestParameters | undefined {
  const parameters: RequestParameters = {
    ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
    ...(options.reasoningEffort !== undefined ? { reasoning_effort: options.reasoningEffort } : {}),
    ...(options.headers && Object.keys(options.headers).length > 0
      ? { headers: recordedHeaders(options.headers) }
      : {}),
  };
  return Object.keys(parameters).length > 0 ? parameters : undefined;
}

/**
 * Refuses options a provider's model does not take, before any call: a temperature above the
 * provider's range, a temperature for an OpenAI reasoning model, a reasoning effort for an OpenAI
 * chat model or for Anthropic (whose extended thinking Verdict does not drive: it needs the
 * thinking blocks sent back with every tool result).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { checkProviderOptions } from "./provider_options.ts";
 * checkProviderOptions("openai", "gpt-4o", { temperature: 1.5 });
 * assert.throws(() => checkProviderOptions("anthropic", "claude-sonnet-4-5", { temperature: 1.5 }),
 *   /--temperature 1.5/);
 * ```
 * @throws {UsageError} naming the flag, the model and the fix.
 */
export function checkProviderOptions(
  provider: "openai" | "anthropic",
  model: string,
  options: ProviderOptions,
): void {
  const spec = `${provider}:${model}`;
  const family = provider === "openai" ? openAiFamily(model) : "anthropic";
  const { temperature, reasoningEffort } = options;
  if (temperature !== undefined && temperature > MAX_TEMPERATURE[provider]) {
    throw new UsageError(
      `--temperature ${temperature}: ${spec} takes a temperature from 0 to ${
        MAX_TEMPERATURE[provider]
      }; pass one in that range`,
    );
  }
  if (temperature !== undefined && family === "reasoning") {
    throw new UsageError(
      `--temperature ${temperature}: ${spec} is a reasoning model (o1, o3, o4, gpt-5), which ` +
        `takes no temperature; drop --temperature (--reasoning-effort steers it instead)`,
    );
  }
  if (reasoningEffort !== undefined && family === "chat") {
    throw new UsageError(
      `--reasoning-effort ${reasoningEffort}: ${spec} is not a reasoning model and would refuse ` +
        `reasoning_effort; drop --reasoning-effort, or run it in an eval of its own`,
    );
  }
  if (reasoningEffort !== undefined && provider === "anthropic") {
    throw new UsageError(
      `--reasoning-effort ${reasoningEffort}: it is for OpenAI reasoning models; ${spec} is ` +
        `not driven with extended thinking; drop --reasoning-effort`,
    );
  }
}

/**
 * The retry policy for `--retries N`: N attempts after the first, the default's other bounds.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { retryPolicy } from "./provider_options.ts";
 * assert.equal(retryPolicy(0).maxAttempts, 1);
 * assert.equal(retryPolicy(undefined).maxAttempts, 5);
 * ```
 */
export function retryPolicy(retries: number | undefined): RetryPolicy {
  return retries === undefined ? DEFAULT_RETRY : { ...DEFAULT_RETRY, maxAttempts: retries + 1 };
}
