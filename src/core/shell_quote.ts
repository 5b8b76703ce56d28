/**
 * Quoting for POSIX `sh`.
 *
 * @module
 */

/**
 * Quotes a string as one `sh` word.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { shellQuote } from "./shell_quote.ts";
 * assert(shellQuote("it's") === `'it'\\''s'`);
 * ```
 */
export function shellQuote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}
