import assert from "node:assert/strict";
import { formatUsd } from "../../src/core/money.ts";
import { costOfUsage, parsePrices } from "../../src/model/prices.ts";

Deno.test("an unknown key in a prices entry names the keys an entry allows", () => {
  assert.throws(
    () => parsePrices("openai:gpt-4o: { input: 2.5, output: 10, discount: 1 }\n", "prices.yaml"),
    (error: Error) => {
      assert.equal((error as unknown as { exitCode: number }).exitCode, 2);
      assert.match(error.message, /prices\.yaml/);
      assert.match(error.message, /openai:gpt-4o\.discount/);
      assert.match(error.message, /allowed here: input, output, cached_input, cache_write/);
      assert.doesNotMatch(error.message, /nothing/);
      return true;
    },
  );
  assert.throws(
    () => parsePrices("openai:gpt-4o: { input: 2.5, output: 10, cache_writes: 1 }\n", "p.yaml"),
    /openai:gpt-4o\.cache_writes.*did you mean 'cache_write'/,
  );
});

Deno.test("cache writes have their own price, the input price when the file gives none", () => {
  const prices = parsePrices(
    "anthropic:c: { input: 3, output: 15, cached_input: 0.30, cache_write: 3.75 }\n" +
      "openai:o: { input: 2, output: 8 }\n",
    "prices.yaml",
  );
  const usage = { input: 1_000_000, cachedInput: 1_000_000, cacheWriteInput: 1_000_000, output: 0 };
  assert.equal(formatUsd(costOfUsage(prices.get("anthropic:c")!, usage)), "7.050000");
  assert.equal(formatUsd(costOfUsage(prices.get("openai:o")!, usage)), "6.000000");
  assert.equal(
    formatUsd(costOfUsage(prices.get("anthropic:c")!, { input: 10, cachedInput: 0, output: 0 })),
    "0.000030",
    "a usage without cache writes (records made before they were counted) costs what it did",
  );
});
