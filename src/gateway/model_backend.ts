/**
 * A gateway backend that asks a Verdict {@linkcode Model} (the scripted model, or any other) and
 * renders its answer in the call's wire format, streamed or not, with its usage.
 *
 * @module
 */
import type { Model } from "../model/model.ts";
import type { GatewayBackend } from "./gateway.ts";
import { WIRE_CODECS } from "./handler.ts";

/**
 * A backend answering from a model.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { modelBackend } from "./model_backend.ts";
 * const backend = modelBackend({
 *   spec: "scripted",
 *   remote: false,
 *   complete: () =>
 *     Promise.resolve({ content: "hi", toolCalls: [], finish: "stop", usage: { input: 1, cachedInput: 0, output: 1 } }),
 * });
 * const answer = await backend.answer({
 *   number: 1, format: "messages", stream: false, model: "m", body: "{}",
 *   request: { system: "", messages: [], tools: [], maxOutputTokens: 10 },
 * }, new AbortController().signal);
 * assert(JSON.parse(answer.body).content[0].text === "hi" && answer.usage?.output === 1);
 * ```
 */
export function modelBackend(model: Model): GatewayBackend {
  return {
    spec: model.spec,
    async answer(call, signal) {
      const response = await model.complete(call.request, { signal });
      return WIRE_CODECS[call.format].render(call, response);
    },
  };
}
