/**
 * Reading a flag that holds a duration in seconds, with a usage error (exit 2) that names the
 * flag, the bounds and an example.
 *
 * @module
 */
import { UsageError } from "../core/errors.ts";
import type { OptionValues } from "./command.ts";
import { stringOption } from "./option_values.ts";

/** The longest duration a seconds flag takes: a day (timers overflow past about 24 days). */
export const MAX_SECONDS = 86_400;

/**
 * A flag holding a number of seconds above 0 (fractions allowed) and at most
 * {@linkcode MAX_SECONDS}, in ms; `fallbackMs` when absent.
 *
 * @throws {UsageError} naming the flag otherwise (exit 2).
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { secondsOption } from "./seconds_option.ts";
 * assert(secondsOption({ "request-timeout": "2.5" }, "request-timeout", 600_000) === 2500);
 * ```
 */
export function secondsOption(values: OptionValues, name: string, fallbackMs: number): number {
  const text = stringOption(values, name);
  if (text === undefined) return fallbackMs;
  const value = Number(text);
  if (text.trim() === "" || !(value > 0 && value <= MAX_SECONDS)) {
    throw new UsageError(
      `--${name} ${text} must be a number of seconds above 0 and at most ${MAX_SECONDS}, ` +
        `such as ${fallbackMs / 1000}`,
    );
  }
  return value * 1000;
}
