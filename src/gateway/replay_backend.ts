/**
 * The replay backend: call N is answered with the answer recorded for call N (status, content
 * type and body, byte for byte), once the agent's request is shown to be the recorded one. The
 * two requests are compared in their normal form (see `request_fingerprint.ts`); the first
 * difference, or a call the record does not have, stops the replay with a
 * {@linkcode GatewayDivergence} naming the request, the JSON path, expected and actual.
 *
 * @module
 */
import { type Difference, firstDifference } from "../core/first_difference.ts";
import type { GatewayBackend } from "./gateway.ts";
import type { RecordedExchange } from "./recording.ts";
import { ALL_REPLAY_MASKS, normalizedRequest, type ReplayMaskName } from "./request_fingerprint.ts";

/**
 * An agent's request differs from the recorded one.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { GatewayDivergence } from "./replay_backend.ts";
 * const error = new GatewayDivergence(3, { path: "model", expected: '"a"', actual: '"b"' });
 * assert.equal(error.message, 'request 3 differs from the record at model: expected "a", got "b"');
 * ```
 */
export class GatewayDivergence extends Error {
  /** The request's number. */
  readonly number: number;
  /** Where the requests first differ. */
  readonly difference: Difference;

  /** Makes the error. */
  constructor(number: number, difference: Difference) {
    super(
      `request ${number} differs from the record at ${difference.path}: ` +
        `expected ${difference.expected}, got ${difference.actual}`,
    );
    this.name = "GatewayDivergence";
    this.number = number;
    this.difference = difference;
  }
}

/**
 * A backend that answers from a record, comparing requests under `masks` (the ones the session
 * was recorded with; every mask by default).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { replayBackend } from "./replay_backend.ts";
 * const body = '{"model":"m","messages":[]}';
 * const backend = replayBackend([{
 *   call: { number: 1, format: "chat_completions", stream: false, model: "m", body },
 *   answer: {
 *     number: 1, status: 200, content_type: "application/json", body: '{"ok":1}', usage: null,
 *     cost_usd: null,
 *   },
 * }]);
 * const call = {
 *   number: 1, format: "chat_completions" as const, stream: false, model: "m", body,
 *   request: { system: "", messages: [], tools: [], maxOutputTokens: 1 },
 * };
 * const answer = await backend.answer(call, new AbortController().signal);
 * assert.equal(answer.body, '{"ok":1}');
 * ```
 */
export function replayBackend(
  exchanges: readonly RecordedExchange[],
  spec = "replay",
  masks: readonly ReplayMaskName[] = ALL_REPLAY_MASKS,
): GatewayBackend {
  const byNumber = new Map(exchanges.map((exchange) => [exchange.call.number, exchange]));
  return {
    spec,
    answer(call) {
      const recorded = byNumber.get(call.number);
      if (recorded === undefined) {
        return Promise.reject(
          new GatewayDivergence(call.number, {
            path: "(request)",
            expected: `no request ${call.number} (the record has ${exchanges.length})`,
            actual: `a ${call.format} request for ${JSON.stringify(call.model)}`,
          }),
        );
      }
      const difference = recorded.call.format !== call.format
        ? { path: "(format)", expected: recorded.call.format, actual: call.format }
        : firstDifference(
          normalizedRequest(recorded.call.format, recorded.call.body, masks),
          normalizedRequest(call.format, call.body, masks),
        );
      if (difference) return Promise.reject(new GatewayDivergence(call.number, difference));
      const { status, content_type, body, usage } = recorded.answer;
      return Promise.resolve({ status, contentType: content_type, body, usage });
    },
  };
}
