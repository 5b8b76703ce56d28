/**
 * Server-sent events as the providers write them: `event: NAME` (when named) and one `data:`
 * line of JSON, each event closed by a blank line; reading such a stream's JSON back; and
 * splitting a text into the pieces a stream carries as deltas.
 *
 * @module
 */

/**
 * One server-sent event.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { sseEvent } from "./sse.ts";
 * assert(sseEvent({ a: 1 }) === 'data: {"a":1}\n\n');
 * assert(sseEvent({ type: "ping" }, "ping") === 'event: ping\ndata: {"type":"ping"}\n\n');
 * ```
 */
export function sseEvent(data: unknown, event?: string): string {
  const line = `data: ${JSON.stringify(data)}\n\n`;
  return event === undefined ? line : `event: ${event}\n${line}`;
}

/** How many characters one streamed delta carries at most. */
export const DELTA_LENGTH = 64;

/**
 * A text cut into the deltas of a stream, never inside a character; no piece for empty text.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { deltaPieces } from "./sse.ts";
 * assert.deepEqual(deltaPieces("abcde", 2), ["ab", "cd", "e"]);
 * assert.deepEqual(deltaPieces("", 2), []);
 * ```
 */
export function deltaPieces(text: string, length: number = DELTA_LENGTH): string[] {
  const pieces: string[] = [];
  let start = 0;
  while (start < text.length) {
    let end = Math.min(text.length, start + length);
    // Keep a surrogate pair together.
    const last = text.charCodeAt(end - 1);
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end++;
    pieces.push(text.slice(start, end));
    start = end;
  }
  return pieces;
}

/**
 * The JSON objects a whole event stream's `data:` fields carry, in order: `[DONE]`, lines cut
 * short and data that is not a JSON object are passed over.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { sseData, sseEvent } from "./sse.ts";
 * const stream = sseEvent({ n: 1 }) + "data: [DONE]\n\n" + sseEvent({ n: 2 }, "x");
 * assert.deepEqual(sseData(stream), [{ n: 1 }, { n: 2 }]);
 * ```
 */
export function sseData(body: string): Record<string, unknown>[] {
  const events: Record<string, unknown>[] = [];
  for (const block of body.replaceAll("\r\n", "\n").split(/\n\n+/)) {
    const data = block.split("\n")
      .filter((line) => line.startsWith("data:"))
      .map((line) => line.slice(line.startsWith("data: ") ? 6 : 5))
      .join("\n");
    if (data === "") continue;
    try {
      const value: unknown = JSON.parse(data);
      if (value !== null && typeof value === "object" && !Array.isArray(value)) {
        events.push(value as Record<string, unknown>);
      }
    } catch {
      // `[DONE]`, or a line cut short
    }
  }
  return events;
}
