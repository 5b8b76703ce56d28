/**
 * A gateway exchange as events of the trial's log: `gateway.call` (the request body as the agent
 * sent it; for a call the gateway refused, its hash, size and start) and `gateway.answer` (the
 * answer as the agent received it, its tokens and cost). The
 * bodies are payload fields, so the event log keeps a large one in the blob store and chains its
 * hash, and `verify` re-hashes it with every other blob the log references.
 *
 * @module
 */
import { sha256Hex } from "../core/hash.ts";
import { formatUsd } from "../core/money.ts";
import { utf8Length } from "../core/utf8_length.ts";
import type { Expect, Same } from "../core/same_type.ts";
import {
  all,
  type CatalogueEvent,
  EVENT,
  event,
  type EventPayload,
} from "../store/event_catalogue.ts";
import type { StoredEvent } from "../store/event_log.ts";
import type { Price } from "../model/prices.ts";
import type { GatewayAnswer, GatewayCall, WireFormat } from "./gateway.ts";
import { callCost, type GatewayLedger } from "./ledger.ts";

// The recorded format is the contract's: a format added to one and not the other fails `deno check`.
type _FormatsMatch = Expect<Same<WireFormat, EventPayload<typeof EVENT.gatewayCall>["format"]>>;

/**
 * The events that record one exchange, for the trial's `record`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { recordExchange } from "./recording.ts";
 * import { SCRIPTED_PRICE } from "../model/prices.ts";
 * const [call, answer] = recordExchange({
 *   number: 1, format: "messages", stream: false, model: "m", body: "{}",
 *   request: { system: "", messages: [], tools: [], maxOutputTokens: 1 },
 * }, {
 *   status: 200, contentType: "application/json", body: "{}",
 *   usage: { input: 1000, cachedInput: 0, output: 0 },
 * }, SCRIPTED_PRICE);
 * assert.equal(call.kind, "gateway.call");
 * assert.equal(answer.kind === "gateway.answer" && answer.payload.cost_usd, "0.001000000000");
 * ```
 */
export function recordExchange(
  call: GatewayCall,
  answer: GatewayAnswer,
  price: Price | null,
): CatalogueEvent[] {
  const cost = callCost(price, answer.usage);
  return [
    event(EVENT.gatewayCall, {
      number: call.number,
      format: call.format,
      stream: call.stream,
      model: call.model,
      ...(call.unread
        ? { body: call.body, body_sha256: call.unread.sha256, body_bytes: call.unread.bytes }
        : answer.refusal
        ? refusedBody(call.body)
        : { body: call.body }),
    }),
    event(EVENT.gatewayAnswer, {
      number: call.number,
      status: answer.status,
      content_type: answer.contentType,
      body: answer.body,
      usage: answer.usage,
      cost_usd: cost === null ? null : formatUsd(cost, 12),
    }),
  ];
}

/** How much of a refused call's body the record keeps, in characters. */
export const REFUSED_BODY_EXCERPT = 1024;

/**
 * A refused call's body as the record keeps it: its hash and size, and its start. An agent that
 * keeps sending large calls past its budget grows the record by a few hundred bytes a call.
 */
function refusedBody(body: string): { body: string; body_sha256: string; body_bytes: number } {
  // A copy, not a slice: V8 keeps a slice's whole parent alive, and this one may be megabytes.
  const excerpt = new TextDecoder().decode(
    new TextEncoder().encode(body.slice(0, REFUSED_BODY_EXCERPT)),
  );
  return {
    body: excerpt,
    body_sha256: sha256Hex(body),
    body_bytes: utf8Length(body),
  };
}

/** One recorded exchange, as read back from a log. */
export interface RecordedExchange {
  /** The call. */
  call: EventPayload<typeof EVENT.gatewayCall>;
  /** Its answer. */
  answer: EventPayload<typeof EVENT.gatewayAnswer>;
}

/**
 * The exchanges of a log, in the order of their calls' numbers; a call without an answer (the
 * trial stopped while it was out) is left out.
 *
 * @throws {CorruptionError} when a gateway event is not in the shape this version reads.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { recordedExchanges } from "./recording.ts";
 * assert.deepEqual(recordedExchanges([]), []);
 * ```
 */
export function recordedExchanges(events: readonly StoredEvent[]): RecordedExchange[] {
  const calls = new Map(
    all(events, EVENT.gatewayCall).map(({ payload }) => [payload.number, payload]),
  );
  return all(events, EVENT.gatewayAnswer)
    .flatMap(({ payload }) => {
      const call = calls.get(payload.number);
      return call ? [{ call, answer: payload }] : [];
    })
    .sort((a, b) => a.call.number - b.call.number);
}

/**
 * Charges `ledger` with the calls an earlier go of a trial answered (before an interruption, or
 * the loss of its engine, started its agent over): they were made, so they count against the
 * budget of the go that follows, and in its totals. Refusals and failed calls were never charged.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { GatewayLedger } from "./ledger.ts";
 * import { chargeRecorded } from "./recording.ts";
 * const ledger = new GatewayLedger(null);
 * chargeRecorded(ledger, []);
 * assert.equal(ledger.totals.calls, 0);
 * ```
 */
export function chargeRecorded(ledger: GatewayLedger, events: readonly StoredEvent[]): void {
  for (const { payload } of all(events, EVENT.gatewayAnswer)) {
    if (payload.status < 300) ledger.charge(payload.usage);
  }
}
