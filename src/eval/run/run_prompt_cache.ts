/**
 * What the provider's prefix cache did for a finished run: the cache split of its model input,
 * read from its record, priced at the price the run was charged at. That price is found again
 * from the run's settings: the `--prices` file it names, read only if its SHA-256 still matches
 * the one recorded, or the scripted model's built-in price. A run with its cost unknown, or whose
 * prices file is gone or changed, has no price, and its dollars saved are unknown.
 *
 * @module
 */
import { sha256Hex } from "../../core/hash.ts";
import { parsePrices, type Price, SCRIPTED_PRICE } from "../../model/prices.ts";
import { runCacheTokens } from "../../stats/cache_tokens.ts";
import { type PromptCacheStats, promptCacheStats } from "../../stats/prompt_cache.ts";
import type { RunRecord } from "../../store/run_table.ts";
import type { Store } from "../../store/store.ts";
import { LOOP_SETTINGS_SCHEMA } from "../setup/loop_settings.ts";

/**
 * The prefix cache's statistics of a run.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openStore } from "../../store/store.ts";
 * import { runPromptCache } from "./run_prompt_cache.ts";
 * const store = openStore(":memory:");
 * store.runs.create({ id: "r1", config: { agent: "nop", model: null, settings: null }, createdAt: 0 });
 * const run = store.runs.get("r1")!;
 * assert.equal(runPromptCache(store, run).hit_rate, null, "no model input: no hit rate");
 * store.close();
 * ```
 */
export function runPromptCache(store: Store, run: RunRecord): PromptCacheStats {
  return promptCacheStats(runCacheTokens(store, run.id), recordedPrice(run.config));
}

/**
 * The price a run was charged at, from its recorded configuration, or null when unknown (a
 * configuration this version cannot read has no price either: the price is only reported).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { recordedPrice } from "./run_prompt_cache.ts";
 * import { SCRIPTED_PRICE } from "../../model/prices.ts";
 * const settings = {
 *   base_url: null, policy: "default", prices_file: null, prices_sha256: null,
 *   cost: "priced", tools: [],
 * };
 * assert.equal(recordedPrice({ model: "scripted", settings }), SCRIPTED_PRICE);
 * assert.equal(recordedPrice({ model: "scripted", settings: { ...settings, cost: "unknown" } }), null);
 * ```
 */
export function recordedPrice(config: Record<string, unknown>): Price | null {
  const parsed = LOOP_SETTINGS_SCHEMA.safeParse(config.settings);
  if (!parsed.success || parsed.data.cost === "unknown") return null;
  const settings = parsed.data;
  const model = settings.replay?.model ?? config.model;
  if (typeof model !== "string") return null;
  let prices = new Map<string, Price>();
  if (settings.prices_file !== null) {
    const text = readTextOrNull(settings.prices_file);
    if (text === null || sha256Hex(text) !== settings.prices_sha256) return null;
    prices = parsePrices(text, settings.prices_file);
  }
  const scripted = model === "scripted" || model.startsWith("scripted:");
  return prices.get(model) ?? (scripted ? prices.get("scripted") ?? SCRIPTED_PRICE : null);
}

function readTextOrNull(path: string): string | null {
  try {
    return Deno.readTextFileSync(path);
  } catch {
    return null; // gone, moved, or outside what this command may read: the price is unknown
  }
}
