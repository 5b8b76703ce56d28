import assert from "node:assert/strict";
import { upstreamBody } from "../../src/gateway/_output_cap.ts";

Deno.test("a lowered Anthropic cap takes the thinking budget down with it, or turns thinking off under 1,024", () => {
  const body = JSON.stringify({
    model: "claude",
    max_tokens: 32_000,
    thinking: { type: "enabled", budget_tokens: 31_999 },
  });
  const lowered = JSON.parse(upstreamBody("messages", body, { cap: 5_000, askUsage: false }));
  assert.deepEqual([lowered.max_tokens, lowered.thinking], [5_000, {
    type: "enabled",
    budget_tokens: 4_999,
  }]);
  const tiny = JSON.parse(upstreamBody("messages", body, { cap: 900, askUsage: false }));
  assert.equal(tiny.max_tokens, 900);
  assert.equal(tiny.thinking, undefined);
  const fits = JSON.stringify({
    max_tokens: 9_000,
    thinking: { type: "enabled", budget_tokens: 2_000 },
  });
  assert.deepEqual(
    JSON.parse(upstreamBody("messages", fits, { cap: 8_000, askUsage: false })).thinking,
    {
      type: "enabled",
      budget_tokens: 2_000,
    },
  );
});
