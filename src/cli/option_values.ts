/**
 * Reading flag values as numbers, with a usage error (exit 2) that names the flag.
 *
 * @module
 */
import { UsageError } from "../core/errors.ts";
import type { OptionValues } from "./command.ts";

/**
 * A string flag's value, or undefined when absent.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { stringOption } from "./option_values.ts";
 * assert(stringOption({ model: "scripted" }, "model") === "scripted");
 * ```
 */
export function stringOption(values: OptionValues, name: string): string | undefined {
  const value = values[name];
  return typeof value === "string" ? value : undefined;
}

/** The most trials per task `--repeat` takes: far more than any statistic needs. */
export const MAX_REPEAT = 1000;

/** The most trials `--concurrency` runs at once: each holds containers on one Docker engine. */
export const MAX_CONCURRENCY = 256;

/**
 * A whole-number flag from `min` to `max`, or `fallback` when absent.
 *
 * @throws {UsageError} naming the flag and its bounds when the value is not such a number (exit 2).
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { count, MAX_REPEAT } from "./option_values.ts";
 * assert(count({ repeat: "3" }, "repeat", 1, 1, MAX_REPEAT) === 3);
 * ```
 */
export function count(
  values: OptionValues,
  name: string,
  fallback: number,
  min: number,
  max: number = Number.MAX_SAFE_INTEGER,
): number {
  const text = stringOption(values, name);
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < min || text.trim() === "") {
    throw new UsageError(`--${name} ${text} is not a whole number of at least ${min}`);
  }
  if (value > max) {
    throw new UsageError(
      `--${name} ${text} is more than ${max}, the most it takes: use ${max} or fewer`,
    );
  }
  return value;
}

/**
 * A flag holding a fraction from 0 to 1, or undefined when absent.
 *
 * @throws {UsageError} naming the flag otherwise (exit 2).
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { fraction } from "./option_values.ts";
 * assert(fraction({ "min-pass-rate": "0.8" }, "min-pass-rate") === 0.8);
 * ```
 */
export function fraction(values: OptionValues, name: string): number | undefined {
  const text = stringOption(values, name);
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!(value >= 0 && value <= 1) || text.trim() === "") {
    throw new UsageError(`--${name} ${text} must be a fraction from 0 to 1, such as 0.8`);
  }
  return value;
}
