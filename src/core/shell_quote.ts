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
 * import { shellQuote } from "./shell_quote.ts";
 * console.assert(shellQuote("it's") === `'it'\\''s'`);
 * ```
 */
export function shellQuote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}
