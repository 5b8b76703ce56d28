import assert from "node:assert/strict";
import { join } from "node:path";
import { usd } from "../../src/core/money.ts";
import { sha256Hex } from "../../src/core/hash.ts";
import { statsText } from "../../src/report/stats_text.ts";
import { runCacheTokens } from "../../src/stats/cache_tokens.ts";
import { promptCacheStats } from "../../src/stats/prompt_cache.ts";
import { runStats } from "../../src/stats/run_stats.ts";
import { openStore } from "../../src/store/store.ts";
import { syntheticRecord } from "../_synthetic_runs.ts";
import { scratchDir } from "../_verdict.ts";
import { runVerdictInProcess } from "../cli/_in_process.ts";
import { PRICED, writeCacheRun } from "./_cache_runs.ts";

const SONNET = { input: usd("3"), cachedInput: usd("0.30"), cacheWrite: usd("3.75") };

Deno.test("prompt cache numbers: hit rate over all input, reads saved, writes' premium taken off", () => {
  const stats = promptCacheStats({ uncached: 1000, read: 3000, written: 1000 }, SONNET);
  assert.deepEqual(stats, {
    input_tokens: 5000,
    cache_read_tokens: 3000,
    cache_write_tokens: 1000,
    hit_rate: 0.6,
    tokens_saved: 3000,
    // 3000 reads at $2.70/M less than full price, 1000 writes at $0.75/M more.
    saved_usd: 0.00735,
  });
  assert.equal(promptCacheStats({ uncached: 1000, read: 3000, written: 0 }, null).saved_usd, null);
  assert.equal(
    promptCacheStats({ uncached: 0, read: 0, written: 1_000_000 }, SONNET).saved_usd,
    -0.75,
    "a prefix written and never read back costs more than no cache",
  );
  const none = promptCacheStats({ uncached: 0, read: 0, written: 0 }, SONNET);
  assert.equal(none.hit_rate, null, "no model input: no hit rate, not 0%");
});

Deno.test("the cache split is summed from the loop's and the gateway's recorded answers of finished trials", async () => {
  await using home = await scratchDir("cache-stats");
  await writeCacheRun(home.path, {
    id: "r1",
    model: "anthropic:claude-test",
    settings: PRICED,
    trials: [
      {
        usages: [
          { input: 2000, cachedInput: 0, cacheWriteInput: 1500, output: 10 },
          { input: 100, cachedInput: 1500, cacheWriteInput: 200, output: 10 },
        ],
      },
      { via: "gateway", usages: [{ input: 50, cachedInput: 700, output: 5 }] },
      { finished: false, usages: [{ input: 1, cachedInput: 1_000_000, output: 1 }] },
    ],
  });
  const store = openStore(join(home.path, "verdict.db"));
  try {
    assert.deepEqual(runCacheTokens(store, "r1"), { uncached: 2150, read: 2200, written: 1700 });
  } finally {
    store.close();
  }
});

Deno.test("stats text: the prompt cache line, none for a run that never touched a cache, unknown dollars without prices", () => {
  const trials = [syntheticRecord("s1", "t", 0, "pass")];
  const cached = statsText(
    "r1",
    runStats(trials, promptCacheStats({ uncached: 1000, read: 3000, written: 1000 }, SONNET)),
  );
  assert.match(
    cached,
    /\n {2}prompt cache: hit rate 60\.0% \(3000 of 5000 input tokens read from the cache, 1000 written\); 3000 tokens saved, \$0\.007350 saved\n/,
  );
  const none = statsText(
    "r1",
    runStats(trials, promptCacheStats({ uncached: 0, read: 0, written: 0 }, null)),
  );
  assert.doesNotMatch(none, /prompt cache/, "no model input: no line");
  const uncachedOnly = statsText(
    "r1",
    runStats(trials, promptCacheStats({ uncached: 500, read: 0, written: 0 }, SONNET)),
  );
  assert.doesNotMatch(uncachedOnly, /prompt cache/, "a model that never cached: no line");
  const unpriced = statsText(
    "r1",
    runStats(trials, promptCacheStats({ uncached: 10, read: 30, written: 0 }, null)),
  );
  assert.match(unpriced, /30 tokens saved, money saved unknown/);
  assert.doesNotMatch(statsText("r1", runStats(trials)), /prompt cache/, "not measured: not shown");
});

Deno.test("verdict stats reports each run's prompt cache, priced by the run's own prices file", async () => {
  await using home = await scratchDir("cache-stats");
  const prices = join(home.path, "prices.yaml");
  const text = "openai:gpt-test: { input: 2.50, output: 10, cached_input: 1.25 }\n";
  await Deno.writeTextFile(prices, text);
  const priced = { ...PRICED, prices_file: prices, prices_sha256: sha256Hex(text) };
  await writeCacheRun(home.path, {
    id: "aaaa1111aaaa",
    model: "openai:gpt-test",
    settings: priced,
    trials: [{ usages: [{ input: 600_000, cachedInput: 400_000, output: 10 }] }],
  });
  await writeCacheRun(home.path, {
    id: "bbbb2222bbbb",
    model: "openai:gpt-test",
    settings: { ...priced, prices_sha256: sha256Hex("another file") },
    trials: [{ usages: [{ input: 600_000, cachedInput: 400_000, output: 10 }] }],
  });
  await writeCacheRun(home.path, {
    id: "cccc3333cccc",
    model: null,
    settings: null,
    trials: [{ usages: [] }],
  });
  const runs = ["aaaa1111aaaa", "bbbb2222bbbb", "cccc3333cccc"];
  const json = await runVerdictInProcess(["stats", ...runs, "--json", "--home", home.path]);
  assert.equal(json.code, 0, json.stderr);
  const [a, b, c] = (JSON.parse(json.stdout) as { runs: { overall: Record<string, unknown> }[] })
    .runs.map((run) => run.overall.prompt_cache);
  assert.deepEqual(a, {
    input_tokens: 1_000_000,
    cache_read_tokens: 400_000,
    cache_write_tokens: 0,
    hit_rate: 0.4,
    tokens_saved: 400_000,
    saved_usd: 0.5,
  });
  assert.equal((b as { saved_usd: unknown }).saved_usd, null, "the prices file changed since");
  assert.equal((c as { hit_rate: unknown }).hit_rate, null);
  const shown = await runVerdictInProcess(["stats", ...runs, "--home", home.path]);
  assert.equal(shown.code, 0, shown.stderr);
  const lines = shown.stdout.split("\n").filter((line) => line.includes("prompt cache:"));
  assert.deepEqual(lines, [
    "  prompt cache: hit rate 40.0% (400000 of 1000000 input tokens read from the cache, 0 written); 400000 tokens saved, $0.500000 saved",
    "  prompt cache: hit rate 40.0% (400000 of 1000000 input tokens read from the cache, 0 written); 400000 tokens saved, money saved unknown (the run's prices file is not at hand)",
  ]);
});
