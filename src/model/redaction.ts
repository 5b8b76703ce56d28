/**
 * Keeping the secrets the harness holds (API keys, credentials in a base URL) out of everything a
 * model's answer carries. An endpoint can echo what it was sent; the model client redacts its
 * answer before anyone sees it, so the agent, the tools, the store and every report get the
 * same redacted text, and a replay of the record drives the agent exactly as the run did.
 *
 * A secret is redacted as written and in base64 (how a `Basic` header carries it). A value
 * shorter than {@linkcode MIN_SECRET_LENGTH} characters is not treated as a secret: local servers
 * take placeholders such as `x` or `EMPTY`, and redacting those would garble the model's output.
 *
 * @module
 */
import type { ModelResponse } from "./model.ts";

/** What a secret is replaced with. */
export const REDACTED = "[redacted]";

/** The shortest value redacted; shorter "keys" are placeholders, not secrets. */
export const MIN_SECRET_LENGTH = 8;

/**
 * Replaces every secret in a text, as written and in base64, with {@linkcode REDACTED}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { redactText } from "./redaction.ts";
 * assert(redactText("key sk-abc12345, b64 c2stYWJjMTIzNDU", ["sk-abc12345"]) ===
 *   "key [redacted], b64 [redacted]");
 * ```
 */
export function redactText(text: string, secrets: readonly string[]): string {
  return secretForms(secrets).reduce((out, form) => out.replaceAll(form, REDACTED), text);
}

/**
 * A model's answer with every secret redacted from its text and its tool calls. Tool arguments
 * are redacted as text and, when they are JSON, once more after parsing, so a secret written
 * with JSON escapes (`\u0073k-…`) is caught too; arguments are rewritten only when they held one.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { redactResponse } from "./redaction.ts";
 * const response = redactResponse({
 *   content: "your key is sk-abc12345",
 *   toolCalls: [{ id: "c", name: "shell", arguments: '{"command":"echo \\u0073k-abc12345"}' }],
 *   finish: "tool_calls",
 *   usage: { input: 1, cachedInput: 0, output: 1 },
 * }, ["sk-abc12345"]);
 * assert(response.content === "your key is [redacted]");
 * assert(response.toolCalls[0].arguments === '{"command":"echo [redacted]"}');
 * ```
 */
export function redactResponse(response: ModelResponse, secrets: readonly string[]): ModelResponse {
  if (secretForms(secrets).length === 0) return response;
  return {
    ...response,
    content: redactText(response.content, secrets),
    toolCalls: response.toolCalls.map((call) => ({
      id: redactText(call.id, secrets),
      name: redactText(call.name, secrets),
      arguments: redactArguments(call.arguments, secrets),
    })),
  };
}

/**
 * The credentials in a URL (`https://user:password@host/`), which fetch sends as a `Basic`
 * header: the password (as written and decoded) and `user:password`; the user name alone when
 * there is no password (a token passed as the user name).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { urlCredentials } from "./redaction.ts";
 * assert(urlCredentials("https://me:pa%24%24word@h.example/v1").includes("pa$$word"));
 * assert(urlCredentials("http://127.0.0.1:8000/v1").length === 0);
 * ```
 */
export function urlCredentials(url: string): string[] {
  const match = /^https?:\/\/([^/@]*)@/.exec(url);
  if (!match) return [];
  const colon = match[1].indexOf(":");
  const user = colon === -1 ? match[1] : match[1].slice(0, colon);
  const password = colon === -1 ? "" : match[1].slice(colon + 1);
  const found = [
    `${decoded(user)}:${decoded(password)}`,
    `${user}:${password}`,
    ...(password === "" ? [user, decoded(user)] : [password, decoded(password)]),
  ];
  return [...new Set(found)].filter((value) => value !== "" && value !== ":");
}

function redactArguments(text: string, secrets: readonly string[]): string {
  const literal = redactText(text, secrets);
  let parsed: unknown;
  try {
    parsed = JSON.parse(literal);
  } catch {
    return literal;
  }
  const cleaned = redactValue(parsed, secrets);
  return JSON.stringify(cleaned) === JSON.stringify(parsed) ? literal : JSON.stringify(cleaned);
}

function redactValue(value: unknown, secrets: readonly string[]): unknown {
  if (typeof value === "string") return redactText(value, secrets);
  if (Array.isArray(value)) return value.map((item) => redactValue(item, secrets));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map((
        [key, item],
      ) => [redactText(key, secrets), redactValue(item, secrets)]),
    );
  }
  return value;
}

/** Each secret long enough to be one, as written and in base64 (padding dropped), longest first. */
function secretForms(secrets: readonly string[]): string[] {
  const forms = new Set<string>();
  for (const secret of secrets) {
    if (secret.length < MIN_SECRET_LENGTH) continue;
    forms.add(secret);
    forms.add(base64(secret).replace(/=+$/, ""));
  }
  return [...forms].sort((a, b) => b.length - a.length);
}

function base64(text: string): string {
  let binary = "";
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary);
}

function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
