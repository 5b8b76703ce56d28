import assert from "node:assert/strict";
import { formatUsd, usd } from "../../src/core/money.ts";
import { budgetedBackend, gatewayBudget } from "../../src/gateway/budget.ts";
import type { GatewayBackend, GatewayCall } from "../../src/gateway/gateway.ts";
import { CONTINUATION_MARGIN } from "../../src/gateway/input_bound.ts";
import { GatewayLedger, type LedgerStop } from "../../src/gateway/ledger.ts";
import { MalformedResponse } from "../../src/model/model_errors.ts";
import { SCRIPTED_PRICE } from "../../src/model/prices.ts";
import { gatewayCall, okAnswer } from "./_calls.ts";

const signal = new AbortController().signal;

/**
 * A backend that answers every call with `input` tokens and `output` tokens, or the call's cap when
 * that is lower (as a provider honours `max_tokens`), after `delayMs`; it counts its calls and the
 * most that were under way at once.
 */
function counting(input: number, output: number, delayMs = 0) {
  const backend = {
    spec: "fixed",
    calls: 0,
    caps: [] as (number | undefined)[],
    underWay: 0,
    mostAtOnce: 0,
    answer: async (call: GatewayCall) => {
      backend.calls++;
      backend.caps.push(call.outputCap);
      backend.mostAtOnce = Math.max(backend.mostAtOnce, ++backend.underWay);
      if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
      backend.underWay--;
      return okAnswer(input, Math.min(output, call.outputCap ?? output));
    },
  };
  return backend satisfies GatewayBackend;
}

const LIMITS = { max_steps: 30, max_total_tokens: 1000, max_cost_usd: 0.5 };

Deno.test("a token budget: a call is answered while its input's bound and a short answer fit, then refused in the agent's format; the stop reason is budget", async () => {
  const backend = counting(100, 100);
  const ledger = new GatewayLedger(null);
  const gateway = budgetedBackend(backend, ledger, gatewayBudget(LIMITS));
  const body = { model: "gpt-4o", messages: [{ role: "user", content: "x".repeat(400) }] };
  const size = JSON.stringify(body).length; // at most this many tokens: none is under a byte
  for (let number = 1; number <= 3; number++) {
    assert.equal(
      (await gateway.answer(gatewayCall(number, "chat_completions", body), signal)).status,
      200,
    );
  }
  // No cap asked: each is sent with what the budget affords then. The first reserves its body's
  // bytes for its input; the next two go on its conversation: its 100 tokens and a margin.
  const continued = 100 + CONTINUATION_MARGIN;
  assert.deepEqual(backend.caps, [1000 - size, 800 - continued, 600 - continued]);
  assert(ledger.stop === null, "no stop before a budget is reached");
  const refused = await gateway.answer(gatewayCall(4, "chat_completions", body), signal);
  assert.equal(refused.status, 400);
  assert.equal(refused.usage, null);
  const error = JSON.parse(refused.body).error;
  assert.equal(error.type, "invalid_request_error");
  assert.equal(
    error.message,
    "this trial's budget refuses the call: max_total_tokens 1000 cannot afford another call (600 " +
      `tokens used, 0 held by calls under way, up to ${continued} for its input and 128 for an ` +
      "answer); Verdict answers no more model calls",
  );
  assert.equal(backend.calls, 3, "a refused call never reaches the backend");
  const stop = ledger.stop as LedgerStop | null; // the refusal changed it
  assert.equal(stop?.reason, "budget");
  assert.match(stop.detail, /max_total_tokens/);
  assert.deepEqual(ledger.totals, {
    calls: 3,
    tokens: { input: 300, output: 300 },
    totalTokens: 600,
    costUsd: null,
  });
});

Deno.test("30 calls at once against a cap of 10 calls: 10 are answered, the rest refused", async () => {
  const backend = counting(10, 10, 20);
  const ledger = new GatewayLedger(null);
  const gateway = budgetedBackend(backend, ledger, {
    ...gatewayBudget({ ...LIMITS, max_total_tokens: 10_000_000 }),
    maxCalls: 10,
  });
  const answers = await Promise.all(
    Array.from(
      { length: 30 },
      (_, index) =>
        gateway.answer(gatewayCall(index + 1, "chat_completions", { model: "m" }), signal),
    ),
  );
  assert.equal(answers.filter((answer) => answer.status === 200).length, 10);
  assert.equal(backend.calls, 10);
  assert.equal(backend.mostAtOnce, 10, "the ten were under way together");
  assert.match(
    JSON.parse(answers[29].body).error.message,
    /cap of 10 model calls reached \(10 of them under way\)/,
  );
});

Deno.test("a $0.50 budget is never passed by calls made at once, each asking for 32,000 output tokens", async () => {
  // SCRIPTED_PRICE: $1 per million input, $4 per million output. Each call would use $0.128.
  const backend = counting(2_000, 32_000, 20);
  const ledger = new GatewayLedger(SCRIPTED_PRICE);
  const limits = { max_steps: 100, max_total_tokens: 10_000_000, max_cost_usd: 0.5 };
  const gateway = budgetedBackend(backend, ledger, gatewayBudget(limits));
  const body = { model: "claude", max_tokens: 32_000, system: "x".repeat(2_000), messages: [] };
  const answers = await Promise.all(
    Array.from(
      { length: 30 },
      (_, index) => gateway.answer(gatewayCall(index + 1, "messages", body), signal),
    ),
  );
  const answered = answers.filter((answer) => answer.status === 200).length;
  assert(answered > 1 && answered < 30, `${answered} answered`);
  assert(ledger.totals.costUsd! <= usd("0.5"), formatUsd(ledger.totals.costUsd!));
  assert.equal(ledger.stop?.reason, "budget");
  assert.match(ledger.stop.detail, /^max_cost_usd 0\.500000 cannot afford another call/);
  // The first three fit whole; the fourth gets what is left.
  assert.deepEqual(backend.caps.slice(0, 3), [undefined, undefined, undefined]);
  assert(backend.caps[3]! < 32_000 && backend.caps[3]! >= 128, String(backend.caps[3]));
});

Deno.test("a large input and Claude Code's 32,000-token cap admit more than one call under $0.50", async () => {
  const backend = counting(15_000, 500);
  const ledger = new GatewayLedger(SCRIPTED_PRICE);
  const limits = { max_steps: 100, max_total_tokens: 10_000_000, max_cost_usd: 0.5 };
  const gateway = budgetedBackend(backend, ledger, gatewayBudget(limits));
  const body = { model: "claude", max_tokens: 32_000, system: "x".repeat(60_000), messages: [] };
  for (let number = 1; number <= 3; number++) {
    assert.equal((await gateway.answer(gatewayCall(number, "messages", body), signal)).status, 200);
  }
  assert.deepEqual(backend.caps, [undefined, undefined, undefined], "the cap as asked");
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
  // SCRIPTED_PRICE: $1 per million input, $4 per million output: each call uses $0.20 here, and
  // reserves a little more (its input's bound is its body's bytes).
  const limits = { max_steps: 100, max_total_tokens: 10_000_000, max_cost_usd: 0.5 };
  const priced = new GatewayLedger(SCRIPTED_PRICE);
  const gateway = budgetedBackend(counting(100_000, 25_000), priced, gatewayBudget(limits));
  const body = { model: "m", max_output_tokens: 25_000, input: "x".repeat(100_000) };
  const call = (number: number) => gatewayCall(number, "responses", body);
  assert.equal((await gateway.answer(call(1), signal)).status, 200);
  assert.equal((await gateway.answer(call(2), signal)).status, 200);
  assert.equal(formatUsd(priced.totals.costUsd!), "0.400000");
  const refused = await gateway.answer(call(3), signal); // $0.10 left: not its input's bound
  assert.equal(refused.status, 400);
  assert.match(
    JSON.parse(refused.body).error.message,
    /max_cost_usd 0\.500000 cannot afford another call \(\$0\.400000 spent, \$0\.000000 held by calls under way, up to \$0\.100\d+ for its input of up to 100\d+ tokens\)/,
  );

  const unpriced = new GatewayLedger(null);
  const free = budgetedBackend(counting(100_000, 25_000), unpriced, gatewayBudget(limits));
  for (let number = 1; number <= 4; number++) {
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

Deno.test("a call asking for fewer tokens than a short answer is let through with its own cap; an uncapped call is sent no cap while the budget affords the default", async () => {
  const backend = counting(10, 1);
  const gateway = budgetedBackend(backend, new GatewayLedger(null), gatewayBudget(LIMITS));
  const probe = { model: "claude", max_tokens: 1, messages: [] };
  assert.equal((await gateway.answer(gatewayCall(1, "messages", probe), signal)).status, 200);
  const roomy = budgetedBackend(
    backend,
    new GatewayLedger(null),
    gatewayBudget({ ...LIMITS, max_total_tokens: 1_000_000 }),
  );
  const uncapped = { model: "gpt-4o", messages: [] };
  assert.equal(
    (await roomy.answer(gatewayCall(2, "chat_completions", uncapped), signal)).status,
    200,
  );
  assert.deepEqual(backend.caps, [undefined, undefined], "no cap sent in either case");
});

Deno.test("a success the gateway cannot read is counted at its worst case: the provider may have billed it", async () => {
  const ledger = new GatewayLedger(null);
  let unreadable = true;
  const gateway = budgetedBackend(
    {
      spec: "fixed",
      answer: (call) => {
        if (unreadable) {
          unreadable = false;
          return Promise.reject(new MalformedResponse("openai", "the body is not JSON", true));
        }
        return Promise.resolve(okAnswer(100, Math.min(100, call.outputCap ?? 100)));
      },
    },
    ledger,
    gatewayBudget(LIMITS),
  );
  const body = { model: "gpt-4o", messages: [{ role: "user", content: "x".repeat(400) }] };
  await assert.rejects(
    gateway.answer(gatewayCall(1, "chat_completions", body), signal),
    MalformedResponse,
  );
  // Its whole reservation: the body's bytes for its input, the rest of the budget for its output.
  assert.deepEqual(ledger.totals.tokens, {
    input: JSON.stringify(body).length,
    output: 1000 - JSON.stringify(body).length,
  });
  const next = await gateway.answer(gatewayCall(2, "chat_completions", body), signal);
  assert.equal(next.status, 400, "nothing is left for another call");
  // A failure that is no success (the provider down) is not charged.
  const down = new GatewayLedger(null);
  const failing = budgetedBackend(
    {
      spec: "fixed",
      answer: () => Promise.reject(new MalformedResponse("openai", "HTTP 500", false)),
    },
    down,
    gatewayBudget(LIMITS),
  );
  await assert.rejects(failing.answer(gatewayCall(1, "chat_completions", body), signal));
  assert.equal(down.totals.totalTokens, 0);
});
