/**
 * The estimators of SPEC section 8: Wilson score intervals, unbiased pass@k (Chen et al. 2021),
 * pass^k (every one of k attempts passes), the exact two-sided McNemar test, and quantiles.
 *
 * @module
 */

/** z for a two-sided 95% interval. */
const Z95 = 1.959963984540054;

/**
 * The Wilson score interval of a proportion; `[0, 1]` when there are no trials.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { wilson } from "./estimators.ts";
 * const [low, high] = wilson(8, 10);
 * assert(Math.abs(low - 0.4902) < 1e-4 && Math.abs(high - 0.9433) < 1e-4);
 * ```
 */
export function wilson(passes: number, n: number, z = Z95): [number, number] {
  if (n === 0) return [0, 1];
  const p = passes / n;
  const z2 = z * z;
  const center = (p + z2 / (2 * n)) / (1 + z2 / n);
  const half = (z / (1 + z2 / n)) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  return [Math.max(0, center - half), Math.min(1, center + half)];
}

/**
 * Unbiased pass@k from n attempts with c passes: `1 - C(n-c, k) / C(n, k)`, computed as a
 * product so it never overflows (Chen et al. 2021).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { passAtK } from "./estimators.ts";
 * assert(Math.abs(passAtK(10, 3, 1) - 0.3) < 1e-12);
 * assert(passAtK(10, 0, 5) === 0 && passAtK(10, 8, 3) === 1);
 * ```
 */
export function passAtK(n: number, c: number, k: number): number {
  if (k < 1 || k > n) throw new RangeError(`pass@k needs 1 <= k <= n (k=${k}, n=${n})`);
  if (n - c < k) return 1;
  let product = 1;
  for (let i = n - c + 1; i <= n; i++) product *= 1 - k / i;
  return 1 - product;
}

/**
 * pass^k: the chance that k attempts drawn without replacement from n all pass,
 * `C(c, k) / C(n, k)`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { passHatK } from "./estimators.ts";
 * assert(passHatK(4, 2, 2) === 1 / 6 && passHatK(4, 4, 3) === 1 && passHatK(4, 1, 2) === 0);
 * ```
 */
export function passHatK(n: number, c: number, k: number): number {
  if (k < 1 || k > n) throw new RangeError(`pass^k needs 1 <= k <= n (k=${k}, n=${n})`);
  if (c < k) return 0;
  let product = 1;
  for (let i = 0; i < k; i++) product *= (c - i) / (n - i);
  return product;
}

/**
 * The exact two-sided McNemar p-value for b discordant pairs one way and c the other: twice the
 * smaller binomial tail of Binomial(b + c, 1/2), capped at 1; 1 when there are none.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { mcnemarExact } from "./estimators.ts";
 * assert(mcnemarExact(0, 0) === 1);
 * assert(Math.abs(mcnemarExact(0, 6) - 0.03125) < 1e-12);
 * ```
 */
export function mcnemarExact(b: number, c: number): number {
  const n = b + c;
  if (n === 0) return 1;
  const smaller = Math.min(b, c);
  // Sum C(n, i) / 2^n for i <= smaller, with the terms built in log space for large n.
  let logTerm = -n * Math.LN2; // i = 0: C(n, 0) / 2^n
  let tail = Math.exp(logTerm);
  for (let i = 1; i <= smaller; i++) {
    logTerm += Math.log((n - i + 1) / i);
    tail += Math.exp(logTerm);
  }
  return Math.min(1, 2 * tail);
}

/**
 * The q-quantile of numbers by the nearest-rank method; null for none.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { quantile } from "./estimators.ts";
 * assert(quantile([5, 1, 3], 0.5) === 3 && quantile([], 0.5) === null);
 * ```
 */
export function quantile(values: readonly number[], q: number): number | null {
  if (values.length === 0) return null;
  const sorted = Float64Array.from(values).sort();
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}
