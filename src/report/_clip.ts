/**
 * Long texts of a trajectory (tool outputs, diffs) cut to their head and tail.
 *
 * @module
 */

/** Most characters of one text a trajectory keeps. */
const MAX_TEXT = 20_000;

/**
 * A text cut to its first and last 10,000 characters, with a line saying how many were left out.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { clip } from "./_clip.ts";
 * assert.equal(clip("short"), "short");
 * assert.match(clip("x".repeat(30_000)), /\[\.\.\. 10000 characters omitted \.\.\.\]/);
 * ```
 */
export function clip(text: string): string {
  return text.length > MAX_TEXT
    ? `${text.slice(0, MAX_TEXT / 2)}\n[... ${text.length - MAX_TEXT} characters omitted ...]\n${
      text.slice(-MAX_TEXT / 2)
    }`
    : text;
}
