/**
 * Tool output is cut to a size the model can take, keeping its head and its tail: the start of a
 * log says what ran, the end says how it ended.
 *
 * @module
 */

/** The default most characters of one tool result. */
export const MAX_TOOL_OUTPUT_CHARS = 12_000;

/**
 * Keeps the first and last `max / 2` characters with a marker saying how many were dropped.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { truncateMiddle } from "./truncate.ts";
 * const text = truncateMiddle("a".repeat(50) + "b".repeat(50), 20);
 * assert(text.startsWith("aaaaaaaaaa") && text.endsWith("bbbbbbbbbb"));
 * assert(text.includes("[... 80 characters omitted ...]"));
 * ```
 */
export function truncateMiddle(text: string, max = MAX_TOOL_OUTPUT_CHARS): string {
  if (text.length <= max) return text;
  const half = Math.floor(max / 2);
  return `${text.slice(0, half)}\n[... ${text.length - 2 * half} characters omitted ...]\n${
    text.slice(-half)
  }`;
}
