/**
 * Whether an upstream's successful (2xx) answer is whole, before the gateway hands it to an
 * agent: a body that is not a JSON object, or an event stream that stopped before the event that
 * ends it in its wire format, is the provider's failure, not an answer the agent should be
 * judged on. The live backend turns it into a `MalformedResponse` (infrastructure), as Verdict's
 * own loop does with a body it cannot read.
 *
 * @module
 */
import { RESPONSE_ENDS } from "./answer_usage.ts";
import type { WireFormat } from "./gateway.ts";
import { sseData } from "./sse.ts";

/** The event that closes a stream, by wire format, in words for the problem it names. */
const STREAM_ENDS: Readonly<Record<WireFormat, string>> = {
  chat_completions: "data: [DONE]",
  responses: "response.completed (or .incomplete, .failed)",
  messages: "message_stop",
};

/**
 * What is wrong with a 2xx answer's body, in words, or null when it is whole.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { answerProblem } from "./answer_problem.ts";
 * assert.equal(answerProblem("chat_completions", "application/json", '{"choices":[]}'), null);
 * assert.match(answerProblem("chat_completions", "application/json", '{"choi')!, /not JSON/);
 * const cut = 'data: {"choices":[]}\n\n';
 * assert.match(answerProblem("chat_completions", "text/event-stream", cut)!, /\[DONE\]/);
 * assert.equal(answerProblem("chat_completions", "text/event-stream", cut + "data: [DONE]\n\n"), null);
 * ```
 */
export function answerProblem(
  format: WireFormat,
  contentType: string,
  body: string,
): string | null {
  if (!contentType.toLowerCase().startsWith("text/event-stream")) return jsonProblem(body);
  if (streamEnded(format, body)) return null;
  return `the event stream stopped before ${STREAM_ENDS[format]} (${body.length} bytes)`;
}

function jsonProblem(body: string): string | null {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return `the body is not JSON: ${excerpt(body)}`;
  }
  return value !== null && typeof value === "object" && !Array.isArray(value)
    ? null
    : `the body is not a JSON object: ${excerpt(body)}`;
}

function streamEnded(format: WireFormat, body: string): boolean {
  switch (format) {
    case "chat_completions":
      return /(^|\n)data: ?\[DONE\]\s*$/.test(body.replaceAll("\r\n", "\n"));
    case "responses":
      return sseData(body).some((event) => RESPONSE_ENDS.has(String(event.type)));
    case "messages":
      return sseData(body).some((event) => event.type === "message_stop");
  }
}

function excerpt(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > 120 ? `${flat.slice(0, 120)}…` : flat || "(empty body)";
}
