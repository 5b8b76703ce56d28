/**
 * A run's model input tokens by how the provider's cache served them, summed from the recorded
 * answers: the loop's `model.response` events and an installed agent's `gateway.answer` events.
 * The trial summaries count input tokens as one number, so the split is read from the sessions'
 * logs; only those two kinds of event are loaded (their blob fields checked against their hashes,
 * their payloads against their schemas).
 *
 * @module
 */
import { EVENT, type EventPayload, readEvent } from "../store/event_catalogue.ts";
import type { Store } from "../store/store.ts";
import type { CacheTokens } from "./prompt_cache.ts";

const ANSWERS: ReadonlySet<string> = new Set([EVENT.modelResponse, EVENT.gatewayAnswer]);

/**
 * The cache split of the input tokens of a run's finished trials.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openStore } from "../store/store.ts";
 * import { EVENT, event } from "../store/event_catalogue.ts";
 * import { runCacheTokens } from "./cache_tokens.ts";
 * const store = openStore(":memory:");
 * store.runs.create({ id: "r1", config: {}, createdAt: 0 });
 * store.runs.createSession({ id: "s1", run: "r1", task: "t", repeat: 0 });
 * store.events.append("s1", [event(EVENT.modelResponse, {
 *   step: 1, cost_usd: null,
 *   response: { content: "", toolCalls: [], finish: "stop", usage: { input: 10, cachedInput: 30, output: 1 } },
 * })]);
 * store.runs.setSessionStatus("s1", "finished");
 * assert.deepEqual(runCacheTokens(store, "r1"), { uncached: 10, read: 30, written: 0 });
 * store.close();
 * ```
 * @throws {CorruptionError} when an answer's payload or one of its blobs is damaged.
 */
export function runCacheTokens(store: Store, run: string): CacheTokens {
  const tokens: CacheTokens = { uncached: 0, read: 0, written: 0 };
  const add = (usage: EventPayload<typeof EVENT.gatewayAnswer>["usage"]) => {
    if (usage === null) return;
    tokens.uncached += usage.input;
    tokens.read += usage.cachedInput;
    tokens.written += usage.cacheWriteInput ?? 0;
  };
  for (const session of store.runs.sessions(run)) {
    if (session.status !== "finished") continue;
    for (const row of store.events.rows(session.id)) {
      if (!ANSWERS.has(row.kind)) continue;
      const answer = readEvent(store.events.materialize(row));
      if (answer?.kind === EVENT.modelResponse) add(answer.payload.response.usage);
      else if (answer?.kind === EVENT.gatewayAnswer) add(answer.payload.usage);
    }
  }
  return tokens;
}
