/**
 * How much of a run's model input a provider's prefix cache served (Anthropic's prompt caching,
 * OpenAI's automatic prefix caching): the hit rate, the tokens it saved, and, when the run's prices
 * are at hand, the dollars it saved.
 *
 * @module
 */
import { costOf, type Usd, usdToNumber } from "../core/money.ts";

/** A run's model input tokens, by how the provider's cache served them. */
export interface CacheTokens {
  /** Input tokens neither read from nor written to the cache. */
  uncached: number;
  /** Input tokens read from the cache. */
  read: number;
  /** Input tokens written to the cache. */
  written: number;
}

/** USD per million input tokens: uncached, read from the cache, written to it. */
export interface CacheRates {
  /** Uncached input. */
  input: Usd;
  /** Input read from the cache. */
  cachedInput: Usd;
  /** Input written to the cache. */
  cacheWrite: Usd;
}

/** The prefix cache's effect on one run, as `stats` reports it. */
export interface PromptCacheStats {
  /** Every input token of the run's model calls: uncached, read from and written to the cache. */
  input_tokens: number;
  /** Input tokens read from the cache. */
  cache_read_tokens: number;
  /** Input tokens written to the cache. */
  cache_write_tokens: number;
  /** cache_read_tokens / input_tokens (a fraction); null when the run had no model input. */
  hit_rate: number | null;
  /** Input tokens not billed at the full input rate: the cache reads. */
  tokens_saved: number;
  /**
   * Dollars saved against the same calls with no cache: the reads' discount less the writes'
   * premium (negative when writes were never read back); null when the run's prices are unknown.
   */
  saved_usd: number | null;
}

/**
 * The prefix cache's statistics from a run's token counts and, when known, its prices.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { usd } from "../core/money.ts";
 * import { promptCacheStats } from "./prompt_cache.ts";
 * const rates = { input: usd("3"), cachedInput: usd("0.3"), cacheWrite: usd("3.75") };
 * const stats = promptCacheStats({ uncached: 1_000_000, read: 3_000_000, written: 0 }, rates);
 * assert.equal(stats.hit_rate, 0.75);
 * assert.equal(stats.tokens_saved, 3_000_000);
 * assert.equal(stats.saved_usd, 8.1);
 * ```
 */
export function promptCacheStats(tokens: CacheTokens, rates: CacheRates | null): PromptCacheStats {
  const all = tokens.uncached + tokens.read + tokens.written;
  return {
    input_tokens: all,
    cache_read_tokens: tokens.read,
    cache_write_tokens: tokens.written,
    hit_rate: all === 0 ? null : tokens.read / all,
    tokens_saved: tokens.read,
    saved_usd: rates === null ? null : signedDollars(
      costOf(tokens.read, rates.input) - costOf(tokens.read, rates.cachedInput) -
        (costOf(tokens.written, rates.cacheWrite) - costOf(tokens.written, rates.input)),
    ),
  };
}

// Money is formatted unsigned; a net loss keeps its sign.
function signedDollars(amount: Usd): number {
  return amount < 0n ? -usdToNumber(-amount) : usdToNumber(amount);
}
