/**
 * Prices are user data: a YAML (or JSON) file mapping model specs to USD per million input,
 * output, cached-input (cache read) and cache-write tokens, read as decimal strings so no binary
 * floating point touches money. `cached_input` and `cache_write` default to the input price.
 *
 * ```yaml
 * openai:gpt-4o: { input: "2.50", output: "10.00", cached_input: "1.25" }
 * anthropic:claude-sonnet-4-5: { input: 3, output: 15, cached_input: 0.30, cache_write: 3.75 }
 * ```
 *
 * @module
 */
import { z } from "zod";
import { InputError, type InputProblem } from "../core/errors.ts";
import { costOf, type Usd, usd } from "../core/money.ts";
import { schemaProblems } from "../core/schema_problems.ts";
import type { Usage } from "./model.ts";
import { parseYamlInput } from "../core/yaml_input.ts";

/** USD per million tokens. */
export interface Price {
  /** Uncached input. */
  input: Usd;
  /** Output. */
  output: Usd;
  /** Input read from the provider's cache. */
  cachedInput: Usd;
  /** Input written to the provider's cache. */
  cacheWrite: Usd;
}

/**
 * The scripted model's built-in price, so that cost limits and cost requirements are exercised
 * without a real model (a `scripted` entry in a prices file overrides it).
 */
export const SCRIPTED_PRICE: Price = {
  input: usd("1"),
  output: usd("4"),
  cachedInput: usd("0.1"),
  cacheWrite: usd("1"),
};

const DECIMAL = z.string().regex(/^\d+(\.\d+)?$/, "must be a non-negative decimal number");
const ENTRY = z.strictObject({
  input: DECIMAL,
  output: DECIMAL,
  cached_input: DECIMAL.optional(),
  cache_write: DECIMAL.optional(),
});
const FILE = z.record(z.string().min(1), z.unknown());

/**
 * Parses a prices file. The YAML "failsafe" schema keeps every number as the text written.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parsePrices } from "./prices.ts";
 * const prices = parsePrices("openai:gpt-4o: { input: 2.50, output: 10 }\n", "prices.yaml");
 * assert(prices.get("openai:gpt-4o")?.cachedInput === prices.get("openai:gpt-4o")?.input);
 * ```
 * @throws {InputError} naming the file, the model and the field.
 */
export function parsePrices(text: string, file: string): Map<string, Price> {
  const data = parseYamlInput(text, file, {
    stringsOnly: true,
    fix: "write one line per model: 'SPEC: { input: N, output: N, cached_input: N }'",
  });
  const parsed = FILE.safeParse(data, { reportInput: true });
  if (!parsed.success) throw new InputError(schemaProblems(file, FILE, parsed.error.issues));
  // Each entry on its own, so that a problem in one names the keys an entry allows.
  const prices = new Map<string, Price>();
  const problems: InputProblem[] = [];
  for (const [spec, raw] of Object.entries(parsed.data)) {
    const entry = ENTRY.safeParse(raw, { reportInput: true });
    if (!entry.success) {
      problems.push(...schemaProblems(file, ENTRY, entry.error.issues, [spec]));
      continue;
    }
    const { input, output, cached_input, cache_write } = entry.data;
    prices.set(spec, {
      input: usd(input),
      output: usd(output),
      cachedInput: usd(cached_input ?? input),
      cacheWrite: usd(cache_write ?? input),
    });
  }
  if (problems.length > 0) throw new InputError(problems);
  return prices;
}

/**
 * The exact cost of a call's usage.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { costOfUsage, SCRIPTED_PRICE } from "./prices.ts";
 * import { formatUsd } from "../core/money.ts";
 * assert(formatUsd(costOfUsage(SCRIPTED_PRICE, { input: 1000, cachedInput: 0, output: 100 })) === "0.001400");
 * ```
 */
export function costOfUsage(price: Price, usage: Usage): Usd {
  return costOf(usage.input, price.input) + costOf(usage.cachedInput, price.cachedInput) +
    costOf(usage.cacheWriteInput ?? 0, price.cacheWrite) + costOf(usage.output, price.output);
}
