/**
 * Where a request differs from the recorded request of the same step: the first difference, as a
 * JSON path with the expected and actual values, for replay's and `--model replay:`'s reports.
 *
 * @module
 */
import { type Difference, firstDifference } from "../../core/first_difference.ts";
import type { ModelRequest } from "../../model/model.ts";
import { all, EVENT } from "../../store/event_catalogue.ts";
import type { StoredEvent } from "../../store/event_log.ts";
import type { Store } from "../../store/store.ts";

/**
 * The recorded request of a step, rebuilt from its parts, compared with the replayed one (also
 * used by `--model replay:`, see `replay_model.ts`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openStore } from "../../store/store.ts";
 * import { requestDifference } from "./request_difference.ts";
 * const store = openStore(":memory:");
 * const request = { system: "s", messages: [], tools: [], maxOutputTokens: 5 };
 * assert(requestDifference(store, [], 1, request) === undefined); // no such step recorded
 * store.close();
 * ```
 */
export function requestDifference(
  store: Store,
  events: StoredEvent[],
  step: number,
  actual: ModelRequest,
): Difference | undefined {
  let messages: string[] = [];
  for (const event of all(events, EVENT.modelRequest)) {
    const { request } = event.payload;
    messages = [...messages.slice(0, request.prefix), ...request.messages];
    if (event.payload.step !== step) continue;
    const part = (hash: string) => JSON.parse(store.blobs.getText(hash));
    const recorded = {
      system: part(request.system),
      tools: part(request.tools),
      maxOutputTokens: request.max_output_tokens,
      ...(request.parameters ? { parameters: request.parameters } : {}),
      messages: messages.map(part),
    };
    return firstDifference(recorded, JSON.parse(JSON.stringify(actual)));
  }
  return undefined;
}
