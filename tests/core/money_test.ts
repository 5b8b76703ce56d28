import assert from "node:assert/strict";
import { costOf, formatUsd, usd, usdToNumber } from "../../src/core/money.ts";

Deno.test("dollar amounts are exact: 0.1 + 0.2 is 0.3", () => {
  assert.equal(usd("0.1") + usd("0.2"), usd("0.3"));
  assert.equal(usd(0.1) + usd(0.2), usd(0.3));
  assert.equal(usd("1e-7"), usd("0.0000001"));
  assert.equal(formatUsd(usd("2.5")), "2.500000");
});

Deno.test("costs per million tokens are exact, including fractional cents per million", () => {
  assert.equal(formatUsd(costOf(1_000_000, usd("0.0375")), 12), "0.037500000000");
  assert.equal(formatUsd(costOf(1, usd("0.0375")), 12), "0.000000037500");
  assert.equal(usdToNumber(costOf(123_456, usd("3")) + costOf(7_890, usd("15"))), 0.488718);
});

Deno.test("bad amounts are refused", () => {
  assert.throws(() => usd("-1"), RangeError);
  assert.throws(() => usd("1,5"), RangeError);
  assert.throws(() => usd(Number.NaN), RangeError);
  assert.throws(() => usd("0.0000000000000000001"), /more than 18 decimal places/);
});
