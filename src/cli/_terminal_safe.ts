/**
 * Text on its way to a terminal, with every control character written out as `\uXXXX`: a model
 * name, a task's category, a tool's output or a file name from a record cannot move the cursor,
 * recolour, retitle or clear the user's terminal, or hide text behind a carriage return or a
 * bidirectional override. The one sequence Verdict itself sends, progress's "return and clear the
 * line", passes. `\uXXXX` is also what JSON writes for the same character, so JSON output means
 * exactly what it meant.
 *
 * @module
 */

/** Verdict's own progress redraw: back to the line's start, clear it. */
const REDRAW = "\r\x1b[K";

// C0 controls but tab and line feed, DEL, C1 controls, and the bidirectional overrides: matching
// control characters is this pattern's purpose.
// deno-lint-ignore no-control-regex
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/g;

/**
 * `text` with its control characters written out.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { terminalSafe } from "./_terminal_safe.ts";
 * assert.equal(terminalSafe("gpt\x1b]0;owned\x07\n"), "gpt\\u001b]0;owned\\u0007\n");
 * ```
 */
export function terminalSafe(text: string): string {
  return text.split(REDRAW).map((part) =>
    part.replace(CONTROL, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`)
  ).join(REDRAW);
}
