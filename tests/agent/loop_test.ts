import assert from "node:assert/strict";
import { loopAgent } from "../../src/agent/loop_agent.ts";
import { sha256Hex } from "../../src/core/hash.ts";
import { formatUsd, usd } from "../../src/core/money.ts";
import { SplitMix64 } from "../../src/core/rng.ts";
import type { Model } from "../../src/model/model.ts";
import { heuristicCounter } from "../../src/model/tokens.ts";
import { DEFAULT_POLICY } from "../../src/policy/default_policy.ts";
import type { Container } from "../../src/engine/container.ts";
import { finishTool } from "../../src/tools/finish_tool.ts";
import { shellTool } from "../../src/tools/shell_tool.ts";
import { type CatalogueEvent, EVENT } from "../../src/store/event_catalogue.ts";
import { calls, echoTool, runLoop, testTask, touchTool } from "./_loop_harness.ts";

const text = (content: string, finish: "stop" | "refusal" | "length" = "stop") => ({
  content,
  toolCalls: [],
  finish,
  usage: { input: 50, cachedInput: 0, output: 5 },
});

Deno.test("stop reasons: completed by finish, by a plain answer, refused, max_steps", async () => {
  const finished = await runLoop(() => calls(["finish", { summary: "ok" }]));
  assert.deepEqual([
    finished.outcome.stopReason,
    finished.outcome.counters.finished,
    finished.outcome.counters.steps,
  ], ["completed", true, 1]);
  const answered = await runLoop(() => text("All done."));
  assert.equal(answered.outcome.stopReason, "completed");
  const refused = await runLoop(() => text("I can't help with that.", "refusal"));
  assert.deepEqual([refused.outcome.stopReason, refused.outcome.detail], [
    "refused",
    "I can't help with that.",
  ]);
  const runaway = await runLoop(() => calls(["echo", {}]), {
    task: testTask({
      limits: { max_steps: 4, timeout_s: 600, max_total_tokens: 1e6, max_cost_usd: 1 },
    }),
  });
  assert.deepEqual([runaway.outcome.stopReason, runaway.outcome.counters.steps], ["max_steps", 4]);
});

Deno.test("an answer cut at the output limit with no tool call stops as truncated, not completed", async () => {
  const cut = await runLoop(() => text("Here is the plan: first I will", "length"));
  assert.equal(cut.outcome.stopReason, "truncated");
  assert.equal(cut.outcome.counters.finished, false, "the agent did not say it was done");
  assert.match(cut.outcome.detail!, /cut at its output limit \(2000 tokens/);
  const stopped = cut.events.find((event) => event.kind === "loop.stopped");
  assert.equal(stopped?.payload.stop_reason, "truncated");
  // A cut answer that still calls a tool goes on: the tool call is what counts.
  const goesOn = await runLoop((_request, call) =>
    call === 1 ? { ...calls(["echo", {}]), finish: "length" } : calls(["finish", { summary: "ok" }])
  );
  assert.equal(goesOn.outcome.stopReason, "completed");
});

Deno.test("the token budget lowers the last calls' output cap to what is left, and stops when not even a short answer fits", async () => {
  const task = testTask({
    limits: { max_steps: 100, timeout_s: 600, max_total_tokens: 9000, max_cost_usd: 10 },
  });
  const { outcome, requests } = await runLoop(() => calls(["echo", { size: 100 }]), { task });
  assert.equal(outcome.stopReason, "budget");
  assert.match(
    outcome.detail!,
    /^max_total_tokens 9000 cannot afford another call \(\d+ tokens used, up to \d+ for its input and 128 for an answer\)$/,
  );
  assert.ok(outcome.counters.totalTokens <= 9000, `${outcome.counters.totalTokens} tokens used`);
  assert.equal(requests.length, outcome.counters.steps);
  // The reserve (2,000) while it fits; then what is left, never below a short answer.
  const caps = requests.map((request) => request.maxOutputTokens);
  assert.equal(caps[0], 2000);
  const lowered = caps.filter((cap) => cap < 2000);
  assert.ok(lowered.length > 0, `caps ${caps.join(", ")}`);
  assert.ok(lowered.every((cap) => cap >= 128), `caps ${caps.join(", ")}`);
});

Deno.test("an answer cut at a cap the budget lowered stops on budget, not as truncated", async () => {
  const task = testTask({
    limits: { max_steps: 100, timeout_s: 600, max_total_tokens: 2200, max_cost_usd: 10 },
  });
  const { outcome, requests } = await runLoop(
    () => text("Here is the plan: first I will", "length"),
    {
      task,
    },
  );
  assert.ok(requests[0].maxOutputTokens < 2000, `cap ${requests[0].maxOutputTokens}`);
  assert.equal(outcome.stopReason, "budget");
  assert.match(
    outcome.detail!,
    /^the model's answer was cut at \d+ tokens, all the budget had left/,
  );
});

Deno.test("the cost budget stops the run before the call that would pass it; cost is exact", async () => {
  const price = {
    input: usd("3"),
    output: usd("15"),
    cachedInput: usd("0.3"),
    cacheWrite: usd("3.75"),
  };
  const task = testTask({
    limits: { max_steps: 100, timeout_s: 600, max_total_tokens: 1e7, max_cost_usd: 0.01 },
    context: { max_tokens: 16_000, reserve_output_tokens: 100, strategy: "truncate" },
  });
  const { outcome, events } = await runLoop(() => calls(["echo", {}]), { task, price });
  assert.equal(outcome.stopReason, "budget");
  assert.match(outcome.detail!, /^max_cost_usd 0\.01 cannot afford another call \(\$0\.\d+ spent/);
  assert.ok(outcome.counters.costUsd! <= usd("0.01"));
  // Each fake response reports 100 input and 10 output tokens: $0.00045 per step, exactly.
  assert.equal(
    formatUsd(outcome.counters.costUsd!, 12),
    formatUsd(usd("0.00045") * BigInt(outcome.counters.steps), 12),
  );
  const responses = events.filter((event) => event.kind === "model.response");
  assert.equal(responses[0].payload.cost_usd, "0.000450000000");
  const unknown = await runLoop(() => calls(["finish", {}]), { price: null });
  assert.equal(unknown.outcome.counters.costUsd, null, "no price: the cost is unknown, never 0");
});

Deno.test("cache writes count as input tokens and cost the cache-write price", async () => {
  const price = {
    input: usd("3"),
    output: usd("15"),
    cachedInput: usd("0.3"),
    cacheWrite: usd("6"),
  };
  const { outcome, events } = await runLoop(() => ({
    ...calls(["finish", {}]),
    usage: { input: 100, cachedInput: 200, cacheWriteInput: 1000, output: 10 },
  }), { price });
  assert.deepEqual(outcome.tokens, { input: 1300, output: 10 });
  // 100 × $3 + 200 × $0.30 + 1000 × $6 + 10 × $15, per million.
  assert.equal(formatUsd(outcome.counters.costUsd!, 12), "0.006510000000");
  const response = events.find((event) => event.kind === EVENT.modelResponse);
  assert.equal(
    response?.kind === EVENT.modelResponse && response.payload.response.usage.cacheWriteInput,
    1000,
  );
});

Deno.test("denied calls, unknown tools and invalid arguments go back to the model as tool errors", async () => {
  const { outcome, requests, events } = await runLoop((request, call) => {
    if (call === 1) {
      return calls(
        ["shell", { command: "cd src && 'pip' install requests" }],
        ["teleport", {}],
        ["echo", '{"size": 3'],
        ["echo", { size: "big" }],
      );
    }
    const results = request.messages.filter((message) => message.role === "tool");
    assert.equal(results.length, 4);
    return calls(["finish", {}]);
  }, { tools: [echoTool, shellTool, finishTool] });
  assert.equal(outcome.stopReason, "completed");
  assert.equal(outcome.counters.deniedCalls, 1);
  assert.equal(outcome.counters.toolCalls, 5);
  const results = requests[1].messages.filter((message) => message.role === "tool").map((message) =>
    message.content
  );
  assert.match(
    results[0],
    /^denied by policy: installing packages is not allowed.*\(for: pip install requests\)$/,
  );
  assert.match(results[1], /^there is no tool 'teleport'/);
  assert.match(results[2], /^the arguments are not valid JSON/);
  assert.match(results[3], /^invalid arguments for echo: size: /);
  const decision = events.find((event) => event.kind === "policy.decision")!;
  assert.deepEqual([decision.payload.allowed, decision.payload.rule], [false, 0]);
  assert.ok(
    !events.some((event) => event.kind === "tool.intent" && event.payload.tool === "shell"),
    "a denied call never runs",
  );
});

Deno.test("every tool call is recorded as intent then result, with an idempotency key", async () => {
  const { events } = await runLoop((_request, call) =>
    call === 1 ? calls(["echo", { size: 1 }], ["echo", { size: 2 }]) : calls(["finish", {}])
  );
  const kinds = events.map((event) => event.kind);
  assert.deepEqual(kinds.slice(0, 2), ["loop.started", "model.request"]);
  const intents = events.filter((event) => event.kind === "tool.intent");
  const results = events.filter((event) => event.kind === "tool.result");
  assert.equal(intents.length, 3);
  for (const intent of intents) {
    const result = results.find((candidate) =>
      candidate.payload.call_id === intent.payload.call_id
    )!;
    assert.ok(events.indexOf(intent) < events.indexOf(result), "intent before its result");
    assert.equal(result.payload.idempotency_key, intent.payload.idempotency_key);
  }
  assert.notEqual(intents[0].payload.idempotency_key, intents[1].payload.idempotency_key);
  assert.equal(kinds.at(-1), "loop.stopped");
});

Deno.test("a changing call's result commits with the snapshot of its effect, or not at all", async () => {
  const model = (_request: unknown, call: number) =>
    call === 1 ? calls(["touch", {}], ["echo", { size: 1 }]) : calls(["finish", {}]);
  const batches: CatalogueEvent[][] = [];
  await runLoop(model, {
    tools: [touchTool, echoTool, finishTool],
    snapshot: () => Promise.resolve("a".repeat(64)),
    batches,
  });
  const resultBatches = batches.filter((batch) => batch[0].kind === "tool.result");
  assert.deepEqual(
    resultBatches.map((batch) =>
      batch.map((event) => `${event.kind}:${"tool" in event.payload ? event.payload.tool : ""}`)
    ),
    [["tool.result:touch", "workspace.snapshot:"], ["tool.result:echo"], ["tool.result:finish"]],
  );

  // The process dies while the snapshot is taken: the log must not claim a result whose effect a
  // restored container would lack; the intent alone makes resume treat it as unknown.
  const died: CatalogueEvent[][] = [];
  await assert.rejects(
    () =>
      runLoop(model, {
        tools: [touchTool, echoTool, finishTool],
        snapshot: () => Promise.reject(new Error("killed while copying out")),
        batches: died,
      }),
    /killed while copying out/,
  );
  const kinds = died.flat().map((event) =>
    `${event.kind}:${"tool" in event.payload ? event.payload.tool : ""}`
  );
  assert.ok(kinds.includes("tool.intent:touch"), kinds.join(" "));
  assert.ok(!kinds.includes("tool.result:touch"), kinds.join(" "));
});

Deno.test("a model call still running at the task's deadline is aborted: timeout", async () => {
  const slow: Model = {
    spec: "slow",
    remote: false,
    complete: (_request, { signal }) =>
      new Promise((_resolve, reject) => {
        const timer = setTimeout(() => reject(new Error("should have been aborted")), 10_000);
        signal.addEventListener("abort", () => {
          clearTimeout(timer);
          reject(signal.reason);
        });
      }),
  };
  const agent = loopAgent({
    createModel: () => Promise.resolve(slow),
    policyFor: () => DEFAULT_POLICY,
    priceFor: () => null,
    counter: heuristicCounter,
    tools: [echoTool, finishTool],
  });
  const started = performance.now();
  const outcome = await agent.run({
    task: testTask({
      limits: { max_steps: 5, timeout_s: 1, max_total_tokens: 1e6, max_cost_usd: 1 },
    }),
    session: "s",
    container: undefined as unknown as Container,
    record: () => {},
    storeBlob: (text) => sha256Hex(text),
    rng: new SplitMix64(1),
    timeoutMs: 1000,
    resumed: false,
    signal: new AbortController().signal,
  });
  assert.equal(outcome.stopReason, "timeout");
  assert.match(outcome.detail!, /the model call was still running at timeout_s 1/);
  assert.ok(performance.now() - started < 5000);
});
