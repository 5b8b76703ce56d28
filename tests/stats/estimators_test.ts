import assert from "node:assert/strict";
import { mcnemarExact, passAtK, passHatK, quantile, wilson } from "../../src/stats/estimators.ts";

const close = (actual: number, expected: number, tolerance = 1e-9, what = "") =>
  assert.ok(Math.abs(actual - expected) <= tolerance, `${what}: ${actual} is not ${expected}`);

/** n choose k, exactly, by bigint. */
function choose(n: number, k: number): bigint {
  if (k < 0 || k > n) return 0n;
  let result = 1n;
  for (let i = 0; i < k; i++) result = (result * BigInt(n - i)) / BigInt(i + 1);
  return result;
}

Deno.test("Wilson intervals match the closed form, by hand, and behave at 0 of n, n of n and n = 1", () => {
  // By hand from the formula with z = 1.959964: p = 0.8, n = 10 → (0.490162, 0.943318); the
  // textbook value with z rounded to 1.96 is (0.4902, 0.9433).
  const [low, high] = wilson(8, 10);
  close(low, 0.4901624715, 1e-9, "low");
  close(high, 0.9433178485, 1e-9, "high");
  const [zeroLow, zeroHigh] = wilson(0, 20);
  close(zeroLow, 0, 1e-12, "0 of 20 low");
  close(zeroHigh, 0.16112515, 1e-6, "0 of 20 high: z²/(n+z²)");
  const [allLow, allHigh] = wilson(20, 20);
  close(allLow, 1 - 0.16112515, 1e-6, "20 of 20 low");
  close(allHigh, 1, 1e-12, "20 of 20 high");
  const [oneLow, oneHigh] = wilson(1, 1);
  close(oneLow, 1 / (1 + 1.959963984540054 ** 2), 1e-9, "1 of 1 low: 1/(1+z²)");
  close(oneHigh, 1, 1e-12, "1 of 1 high");
  assert.deepEqual(wilson(0, 0), [0, 1]);
});

Deno.test("pass@k equals 1 - C(n-c,k)/C(n,k) computed with exact integers, edge cases included", () => {
  for (const [n, c] of [[1, 0], [1, 1], [5, 0], [5, 5], [10, 3], [20, 7], [50, 1]]) {
    for (let k = 1; k <= n; k++) {
      const exact = 1 - Number(choose(n - c, k)) / Number(choose(n, k));
      close(passAtK(n, c, k), exact, 1e-12, `pass@${k} n=${n} c=${c}`);
    }
  }
  assert.equal(passAtK(1, 1, 1), 1);
  assert.equal(passAtK(1, 0, 1), 0);
  assert.throws(() => passAtK(3, 1, 4), RangeError);
});

Deno.test("pass^k equals C(c,k)/C(n,k) computed with exact integers, edge cases included", () => {
  for (const [n, c] of [[1, 0], [1, 1], [5, 0], [5, 5], [10, 3], [20, 17]]) {
    for (let k = 1; k <= n; k++) {
      close(
        passHatK(n, c, k),
        Number(choose(c, k)) / Number(choose(n, k)),
        1e-12,
        `pass^${k} n=${n} c=${c}`,
      );
    }
  }
  assert.equal(passHatK(3, 3, 3), 1);
  assert.equal(passHatK(3, 0, 1), 0);
});

Deno.test("McNemar's exact p-value equals the doubled binomial tail summed exactly", () => {
  const exactP = (b: number, c: number) => {
    const n = b + c;
    if (n === 0) return 1;
    let tail = 0n;
    for (let i = 0; i <= Math.min(b, c); i++) tail += choose(n, i);
    return Math.min(1, 2 * Number(tail) / 2 ** n);
  };
  for (
    const [b, c] of [[0, 0], [1, 0], [0, 1], [3, 3], [0, 6], [1, 9], [10, 2], [25, 40], [100, 130]]
  ) {
    close(mcnemarExact(b, c), exactP(b, c), 1e-12, `b=${b} c=${c}`);
  }
  assert.equal(mcnemarExact(0, 0), 1, "b + c = 0: no evidence either way");
  close(mcnemarExact(0, 5), 0.0625, 1e-12, "0 vs 5: 2/32");
  assert.equal(mcnemarExact(4, 4), 1);
});

Deno.test("quantiles by nearest rank", () => {
  const values = Array.from({ length: 100 }, (_, i) => 100 - i);
  assert.equal(quantile(values, 0.5), 50);
  assert.equal(quantile(values, 0.95), 95);
  assert.equal(quantile([7], 0.95), 7);
  assert.equal(quantile([], 0.5), null);
});
