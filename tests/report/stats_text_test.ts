import assert from "node:assert/strict";
import { runStats } from "../../src/stats/run_stats.ts";
import { dollars, statsText } from "../../src/report/stats_text.ts";
import { syntheticRecord } from "../_synthetic_runs.ts";

Deno.test("costs are totalled and shown in decimal: no binary rounding in money", () => {
  // In binary, 0.0000005 is a little under half a millionth, so toFixed(6) shows $0.000000.
  assert.equal(dollars(0.0000005), "$0.000001");
  assert.equal(dollars(0.0000015), "$0.000002");
  assert.equal(dollars(null), "unknown");
  const trials = Array.from({ length: 10 }, (_, repeat) => ({
    ...syntheticRecord(`s${repeat}`, "a", repeat, "pass"),
    cost_usd: repeat % 2 === 0 ? 0.1 : 0.0000005,
  }));
  const stats = runStats(trials);
  assert.equal(stats.overall.cost_usd.total, 0.5000025, "five dimes and five half-millionths");
  assert.match(
    statsText("r", stats),
    /cost median \$0\.000001, p95 \$0\.100000 \(total \$0\.500003\)/,
  );
});
