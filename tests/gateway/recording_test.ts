import assert from "node:assert/strict";
import { chargeRecorded, recordedExchanges, recordExchange } from "../../src/gateway/recording.ts";
import { GatewayLedger } from "../../src/gateway/ledger.ts";
import { SCRIPTED_PRICE } from "../../src/model/prices.ts";
import { readTrajectory } from "../../src/report/trajectory.ts";
import { trajectoryText } from "../../src/report/trajectory_text.ts";
import { BLOB_THRESHOLD_BYTES } from "../../src/store/event_log.ts";
import { openStore, type Store } from "../../src/store/store.ts";
import { verifyRun } from "../../src/store/verify.ts";
import { gatewayCall, okAnswer } from "./_calls.ts";

function storeWithSession(): Store & Disposable {
  const store = openStore(":memory:");
  store.runs.create({ id: "r", config: {}, createdAt: 0 });
  store.runs.createSession({ id: "s", run: "r", task: "t", repeat: 0 });
  return Object.assign(store, { [Symbol.dispose]: () => store.close() });
}

const bigPrompt = "x".repeat(BLOB_THRESHOLD_BYTES * 2);
const first = gatewayCall(1, "messages", {
  model: "claude-test",
  max_tokens: 100,
  messages: [{ role: "user", content: bigPrompt }],
}, true);
const firstAnswer = {
  status: 200,
  contentType: "text/event-stream",
  body: "event: message_stop\ndata: {}\n\n",
  usage: { input: 2000, cachedInput: 0, output: 500 },
};
const second = gatewayCall(2, "messages", { model: "claude-test", messages: [] });

Deno.test("an exchange is two chained events; a large body goes to the blob store and verify re-hashes it", () => {
  using store = storeWithSession();
  store.events.append("s", [
    ...recordExchange(first, firstAnswer, SCRIPTED_PRICE),
    ...recordExchange(second, okAnswer(10, 0), SCRIPTED_PRICE),
  ]);
  const [callRow] = store.events.rows("s");
  assert.equal(callRow.kind, "gateway.call");
  const blob = JSON.parse(callRow.refs).body;
  assert(blob, "the large request body is kept as a blob, referenced by the chained row");
  assert(!callRow.payload.includes(bigPrompt));

  const exchanges = recordedExchanges(store.events.read("s"));
  assert.deepEqual(exchanges.map(({ call }) => call.number), [1, 2]);
  assert.equal(exchanges[0].call.body, first.body, "the body comes back exactly as sent");
  assert.equal(exchanges[0].answer.body, firstAnswer.body);
  assert.equal(exchanges[0].answer.content_type, "text/event-stream");
  // $1 per million input, $4 per million output.
  assert.equal(exchanges[0].answer.cost_usd, "0.004000000000");

  const intact = verifyRun(store, "r");
  assert.deepEqual(intact.problems, []);
  assert(intact.blobs >= 1);
  store.db.prepare("UPDATE blobs SET data = ? WHERE hash = ?").run(
    new TextEncoder().encode(JSON.stringify(bigPrompt.replace("x", "y"))),
    blob,
  );
  const tampered = verifyRun(store, "r");
  assert.equal(tampered.problems.length, 1);
  assert.equal(tampered.problems[0].blob, blob);
  assert.match(tampered.problems[0].what, /does not match its content/);
});

Deno.test("an answer without usage records null usage and no cost; unpriced records null", () => {
  const refused = { status: 400, contentType: "application/json", body: "{}", usage: null };
  const [, priced] = recordExchange(second, refused, SCRIPTED_PRICE);
  assert(priced.kind === "gateway.answer");
  assert.equal(priced.payload.usage, null);
  assert.equal(priced.payload.cost_usd, "0.000000000000");
  const [, unpriced] = recordExchange(second, okAnswer(5, 5), null);
  assert(unpriced.kind === "gateway.answer");
  assert.equal(unpriced.payload.cost_usd, null);
});

Deno.test("a call whose answer never came is left out of the exchanges", () => {
  using store = storeWithSession();
  store.events.append("s", [
    ...recordExchange(first, firstAnswer, null),
    recordExchange(second, okAnswer(1, 1), null)[0],
  ]);
  assert.deepEqual(recordedExchanges(store.events.read("s")).map(({ call }) => call.number), [1]);
});

Deno.test("show: gateway calls are steps with their tokens and cost", () => {
  using store = storeWithSession();
  store.events.append("s", [
    ...recordExchange(first, firstAnswer, SCRIPTED_PRICE),
    ...recordExchange(second, okAnswer(10, 3), SCRIPTED_PRICE),
  ]);
  const trajectory = readTrajectory(store, { id: "s", task: "t", repeat: 0 });
  assert.deepEqual(trajectory.steps.map((step) => step.step), [1, 2]);
  assert.deepEqual(trajectory.steps[0].usage, firstAnswer.usage);
  const text = trajectoryText(trajectory);
  assert.match(
    text,
    /step 1 \(2000 in, 500 out, \$0\.004000\): messages call \(streamed\) for claude-test: HTTP 200/,
  );
  assert.match(
    text,
    /step 2 \(10 in, 3 out, \$0\.000022\): messages call for claude-test: HTTP 200/,
  );
});

// An installed agent that starts over (after an interruption, or its engine's loss) pays for the
// calls its earlier go made: a budget of 2,600 tokens with 2,500 spent leaves it 100.
Deno.test("the calls an earlier go answered are charged again to the next go's ledger; refusals and failures are not", () => {
  using store = storeWithSession();
  const refusal = { ...okAnswer(0, 0), status: 400, usage: null };
  const failure = { ...okAnswer(0, 0), status: 502, usage: null };
  store.events.append("s", [
    ...recordExchange(first, firstAnswer, SCRIPTED_PRICE),
    ...recordExchange(second, refusal, SCRIPTED_PRICE),
    ...recordExchange(gatewayCall(3, "messages", { model: "m", messages: [] }), failure, null),
  ]);
  const ledger = new GatewayLedger(SCRIPTED_PRICE);
  chargeRecorded(ledger, store.events.read("s"));
  assert.equal(ledger.totals.calls, 1);
  assert.deepEqual(ledger.totals.tokens, { input: 2000, output: 500 });
  assert.equal(ledger.totals.costUsd, 4_000_000_000_000_000n);
});
