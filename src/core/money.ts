/**
 * Money without binary floating point: amounts are integers of atto-dollars (10^-18 USD) in a
 * bigint, exact for any price written with up to 12 decimal places per million tokens.
 *
 * @module
 */

/** An amount of US dollars, in atto-dollars. */
export type Usd = bigint;

const SCALE = 18;
const ONE = 10n ** BigInt(SCALE);

/**
 * Parses a decimal amount exactly: `"0.0375"`, `2.5`, `"1e-7"`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { formatUsd, usd } from "./money.ts";
 * assert(usd("0.1") + usd("0.2") === usd("0.3"));
 * assert(formatUsd(usd(2.5)) === "2.500000");
 * ```
 * @throws {RangeError} for negative, non-finite or malformed amounts, or more than 18 decimals.
 */
export function usd(value: number | string): Usd {
  const text = typeof value === "number" ? numberText(value) : value.trim();
  const match = /^(\d+)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(text);
  if (!match) throw new RangeError(`'${text}' is not an amount of dollars`);
  const [, whole, fraction = "", exponent = "0"] = match;
  let digits = whole + fraction;
  let scale = SCALE - fraction.length + Number(exponent);
  if (scale < 0) {
    const dropped = digits.slice(digits.length + scale);
    if (/[^0]/.test(dropped)) throw new RangeError(`'${text}' has more than 18 decimal places`);
    digits = digits.slice(0, digits.length + scale) || "0";
    scale = 0;
  }
  return BigInt(digits) * 10n ** BigInt(scale);
}

/**
 * The cost of `tokens` at a price per million tokens.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { costOf, formatUsd, usd } from "./money.ts";
 * assert(formatUsd(costOf(1500, usd("3"))) === "0.004500");
 * ```
 */
export function costOf(tokens: number, pricePerMillion: Usd): Usd {
  return (BigInt(tokens) * pricePerMillion) / 1_000_000n;
}

/**
 * Formats an amount with a fixed number of decimals (rounded half up).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { formatUsd, usd } from "./money.ts";
 * assert(formatUsd(usd("0.0000005"), 6) === "0.000001");
 * ```
 */
export function formatUsd(amount: Usd, decimals = 6): string {
  const unit = 10n ** BigInt(SCALE - decimals);
  const rounded = (amount + unit / 2n) / unit;
  const text = rounded.toString().padStart(decimals + 1, "0");
  return decimals === 0 ? text : `${text.slice(0, -decimals)}.${text.slice(-decimals)}`;
}

/**
 * The amount as a JSON number with at most 12 decimals, for `results.json`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { usd, usdToNumber } from "./money.ts";
 * assert(usdToNumber(usd("0.0045")) === 0.0045);
 * ```
 */
export function usdToNumber(amount: Usd): number {
  return Number(formatUsd(amount, 12));
}

/** One dollar. */
export const ONE_USD: Usd = ONE;

function numberText(value: number): string {
  if (!Number.isFinite(value) || value < 0) {
    throw new RangeError(`${value} is not an amount of dollars`);
  }
  return String(value);
}
