import assert from "node:assert/strict";
import { join } from "node:path";
import { LogicalClock } from "../../src/core/clock.ts";
import { usd } from "../../src/core/money.ts";
import { SplitMix64 } from "../../src/core/rng.ts";
import { withPromptCache } from "../../src/model/_anthropic_cache.ts";
import { DEFAULT_RETRY } from "../../src/model/_http.ts";
import { anthropicModel } from "../../src/model/anthropic.ts";
import type { ModelRequest, ModelResponse } from "../../src/model/model.ts";
import { runCacheTokens } from "../../src/stats/cache_tokens.ts";
import { promptCacheStats } from "../../src/stats/prompt_cache.ts";
import { openStore } from "../../src/store/store.ts";
import { scratchDir } from "../_verdict.ts";
import { PRICED, writeCacheRun } from "../stats/_cache_runs.ts";
import { anthropicReply, fakeProvider } from "./_fake_provider.ts";

const EPHEMERAL = { type: "ephemeral" };
type Body = Record<string, unknown>;
type Turn = { role: string; content: Body[] };

/** Every `cache_control` in a request body, by where it sits. */
function breakpoints(body: Body): string[] {
  const found: string[] = [];
  (body.tools as Body[] | undefined ?? []).forEach((tool, index) => {
    if (tool.cache_control) found.push(`tools[${index}]`);
  });
  if (Array.isArray(body.system)) {
    (body.system as Body[]).forEach((block, index) => {
      if (block.cache_control) found.push(`system[${index}]`);
    });
  }
  (body.messages as Turn[]).forEach((turn, index) =>
    turn.content.forEach((block, at) => {
      if (block.cache_control) found.push(`messages[${index}].content[${at}]`);
    })
  );
  return found;
}

const first: ModelRequest = {
  system: "You fix bugs.",
  messages: [{ role: "user", content: "Fix it." }],
  tools: [
    { name: "read_file", description: "read", parameters: { type: "object" } },
    { name: "finish", description: "stop", parameters: { type: "object" } },
  ],
  maxOutputTokens: 512,
};
const second: ModelRequest = {
  ...first,
  messages: [
    ...first.messages,
    {
      role: "assistant",
      content: "",
      toolCalls: [{ id: "toolu_1", name: "read_file", arguments: '{"path":"a.py"}' }],
    },
    { role: "tool", toolCallId: "toolu_1", name: "read_file", content: "A", isError: false },
  ],
};

Deno.test("anthropic prompt caching: breakpoints on the last tool, the system block and the conversation's end; cache reads reach the stats", async () => {
  await using server = fakeProvider([
    anthropicReply("", [{ id: "toolu_1", name: "read_file", input: { path: "a.py" } }], {
      input_tokens: 20,
      output_tokens: 10,
      cache_read_input_tokens: 0,
      cache_creation_input_tokens: 3000,
    }),
    anthropicReply("", [{ id: "toolu_2", name: "finish", input: {} }], {
      input_tokens: 30,
      output_tokens: 10,
      cache_read_input_tokens: 3000,
      cache_creation_input_tokens: 40,
    }),
  ]);
  const model = anthropicModel(
    { model: "claude-test", baseUrl: server.url, apiKey: "k" },
    { clock: new LogicalClock(), rng: new SplitMix64(1), retry: DEFAULT_RETRY, secrets: [] },
  );
  const responses: ModelResponse[] = [];
  for (const request of [first, second]) {
    responses.push(await model.complete(request, { signal: AbortSignal.timeout(30_000) }));
  }
  const [one, two] = server.received.map((received) => received.body);
  assert.deepEqual(one.system, [{ type: "text", text: "You fix bugs.", cache_control: EPHEMERAL }]);
  assert.deepEqual(breakpoints(one), ["tools[1]", "system[0]", "messages[0].content[0]"]);
  assert.deepEqual(
    breakpoints(two),
    ["tools[1]", "system[0]", "messages[0].content[0]", "messages[2].content[0]"],
    "the first turn's breakpoint stays where it was, so the second turn reads its prefix back",
  );
  assert.deepEqual((two.messages as Turn[])[2].content[0], {
    type: "tool_result",
    tool_use_id: "toolu_1",
    content: "A",
    cache_control: EPHEMERAL,
  });
  assert.deepEqual(responses.map((response) => response.usage), [
    { input: 20, cachedInput: 0, cacheWriteInput: 3000, output: 10 },
    { input: 30, cachedInput: 3000, cacheWriteInput: 40, output: 10 },
  ]);

  await using home = await scratchDir("anthropic-cache");
  await writeCacheRun(home.path, {
    id: "r1",
    model: "anthropic:claude-test",
    settings: PRICED,
    trials: [{ usages: responses.map((response) => response.usage) }],
  });
  const store = openStore(join(home.path, "verdict.db"));
  try {
    const rates = { input: usd("3"), cachedInput: usd("0.30"), cacheWrite: usd("3.75") };
    const stats = promptCacheStats(runCacheTokens(store, "r1"), rates);
    assert.equal(stats.hit_rate, 3000 / 6090);
    assert.equal(stats.tokens_saved, 3000);
    assert.equal(stats.saved_usd, 0.00582, "3000 × $2.70/M saved less 3040 × $0.75/M paid");
  } finally {
    store.close();
  }
});

Deno.test("withPromptCache: no empty blocks marked, the body given is unchanged, never more than four breakpoints", () => {
  const body = {
    model: "m",
    system: "",
    messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
  };
  const copy = structuredClone(body);
  const marked = withPromptCache(body);
  assert.deepEqual(body, copy, "the input is not changed");
  assert.equal(marked.system, "", "an empty system prompt is no block to mark");
  assert.equal(marked.tools, undefined);
  assert.deepEqual(breakpoints(marked), ["messages[0].content[0]"]);
  const long = withPromptCache({
    model: "m",
    system: "s",
    tools: [{ name: "a" }],
    messages: Array.from({ length: 9 }, (_, index) => ({
      role: index % 2 === 0 ? "user" : "assistant",
      content: [{ type: "text", text: `${index}` }, { type: "text", text: "more" }],
    })),
  });
  assert.deepEqual(breakpoints(long), [
    "tools[0]",
    "system[0]",
    "messages[6].content[1]",
    "messages[8].content[1]",
  ]);
});
