import assert from "node:assert/strict";
import { formatUsd } from "../../src/core/money.ts";
import { budgetedBackend, gatewayBudget } from "../../src/gateway/budget.ts";
import type { GatewayBackend } from "../../src/gateway/gateway.ts";
import { GatewayLedger, type LedgerStop } from "../../src/gateway/ledger.ts";
import { SCRIPTED_PRICE } from "../../src/model/prices.ts";
import { gatewayCall, okAnswer } from "./_calls.ts";

const signal = new AbortController().signal;

/** A backend that answers every call with `input` and `output` tokens and counts its calls. */
function counting(input: number, output: number): GatewayBackend & { calls: number } {
  const backend = {
    spec: "fixed",
    calls: 0,
    answer: () => {
      backend.calls++;
      return Promise.resolve(okAnswer(input, output));
    },
  };
  return backend;
}

const LIMITS = { max_steps: 30, max_total_tokens: 1000, max_cost_usd: 0.5 };

Deno.test("a token budget: the call after the one that reaches it is refused in the agent's format; the stop reason is budget", async () => {
  const backend = counting(300, 100);
  const ledger = new GatewayLedger(null);
  const gateway = budgetedBackend(backend, ledger, gatewayBudget(LIMITS));
  const body = { model: "gpt-4o", messages: [] };
  for (let number = 1; number <= 3; number++) {
    assert.equal(
      (await gateway.answer(gatewayCall(number, "chat_completions", body), signal)).status,
      200,
    );
  }
  assert(ledger.stop === null, "no stop before a budget is reached");
  const refused = await gateway.answer(gatewayCall(4, "chat_completions", body), signal);
  assert.equal(refused.status, 400);
  assert.equal(refused.usage, null);
  const error = JSON.parse(refused.body).error;
  assert.equal(error.type, "invalid_request_error");
  assert.match(error.message, /max_total_tokens 1000 reached \(1200 tokens used\)/);
  assert.equal(backend.calls, 3, "a refused call never reaches the backend");
  const stop = ledger.stop as LedgerStop | null; // the refusal changed it
  assert.equal(stop?.reason, "budget");
  assert.match(stop.detail, /max_total_tokens/);
  assert.deepEqual(ledger.totals, {
    calls: 3,
    tokens: { input: 900, output: 300 },
    totalTokens: 1200,
    costUsd: null,
  });
});

Deno.test("a Messages agent gets Anthropic's error shape", async () => {
  const ledger = new GatewayLedger(null);
  const gateway = budgetedBackend(counting(1, 1), ledger, {
    ...gatewayBudget(LIMITS),
    maxCalls: 1,
  });
  await gateway.answer(gatewayCall(1, "messages", { model: "claude" }), signal);
  const refused = await gateway.answer(gatewayCall(2, "messages", { model: "claude" }), signal);
  const body = JSON.parse(refused.body);
  assert.equal(body.type, "error");
  assert.equal(body.error.type, "invalid_request_error");
  assert.match(body.error.message, /cap of 1 model calls reached/);
  assert.equal(ledger.stop?.reason, "budget");
});

Deno.test("a cost budget, when priced; unpriced, only tokens and calls count", async () => {
  // SCRIPTED_PRICE: $1 per million input, $4 per million output.
  const limits = { max_steps: 100, max_total_tokens: 10_000_000, max_cost_usd: 0.5 };
  const priced = new GatewayLedger(SCRIPTED_PRICE);
  const gateway = budgetedBackend(counting(200_000, 50_000), priced, gatewayBudget(limits));
  const call = (number: number) => gatewayCall(number, "responses", { model: "m" });
  assert.equal((await gateway.answer(call(1), signal)).status, 200); // $0.40
  assert.equal((await gateway.answer(call(2), signal)).status, 200); // $0.80 in all
  const refused = await gateway.answer(call(3), signal);
  assert.equal(refused.status, 400);
  assert.match(
    JSON.parse(refused.body).error.message,
    /max_cost_usd 0\.500000 reached \(\$0\.800000 spent\)/,
  );
  assert.equal(formatUsd(priced.totals.costUsd!), "0.800000");

  const unpriced = new GatewayLedger(null);
  const free = budgetedBackend(counting(200_000, 50_000), unpriced, gatewayBudget(limits));
  for (let number = 1; number <= 3; number++) {
    assert.equal((await free.answer(call(number), signal)).status, 200);
  }
  assert.equal(unpriced.stop, null);
});

Deno.test("the call cap defaults to limits.max_steps", () => {
  assert.equal(gatewayBudget({ ...LIMITS, max_steps: 7 }).maxCalls, 7);
  assert.equal(gatewayBudget(LIMITS, 99).maxCalls, 99);
});

Deno.test("the ledger counts cache reads and writes as input, as the loop does", () => {
  const ledger = new GatewayLedger(SCRIPTED_PRICE);
  ledger.charge({ input: 10, cachedInput: 100, cacheWriteInput: 5, output: 3 });
  ledger.charge(null);
  assert.deepEqual(ledger.totals.tokens, { input: 115, output: 3 });
  assert.equal(ledger.totals.calls, 2);
  assert.deepEqual(
    { ...ledger.counters, costUsd: formatUsd(ledger.counters.costUsd!) },
    { steps: 2, totalTokens: 118, costUsd: "0.000037" },
  );
});
