import assert from "node:assert/strict";
import type { GatewayCall } from "../../src/gateway/gateway.ts";
import { recordedExchanges, recordExchange } from "../../src/gateway/recording.ts";
import { GatewayDivergence, replayBackend } from "../../src/gateway/replay_backend.ts";
import {
  MASKED,
  normalizedRequest,
  REPLAY_MASKS,
  type ReplayMask,
  requestFingerprint,
} from "../../src/gateway/request_fingerprint.ts";
import { openStore } from "../../src/store/store.ts";
import { gatewayCall } from "./_calls.ts";

const signal = new AbortController().signal;

function claudeRequest(session: string, content: string): Record<string, unknown> {
  return {
    model: "claude-test",
    max_tokens: 1000,
    stream: true,
    metadata: { user_id: `user_abc_account__session_${session}` },
    messages: [{ role: "user", content: [{ type: "text", text: content }] }],
  };
}

const streamed = 'event: message_start\ndata: {"type":"message_start"}\n\n';

/** A replay backend over a record of `calls`, each answered with its number in the body. */
function recorded(calls: GatewayCall[]) {
  const store = openStore(":memory:");
  store.runs.create({ id: "r", config: {}, createdAt: 0 });
  store.runs.createSession({ id: "s", run: "r", task: "t", repeat: 0 });
  store.events.append(
    "s",
    calls.flatMap((call) =>
      recordExchange(call, {
        status: 200,
        contentType: "text/event-stream",
        body: `${streamed}#${call.number}`,
        usage: { input: 10, cachedInput: 0, output: call.number },
      }, null)
    ),
  );
  const exchanges = recordedExchanges(store.events.read("s"));
  store.close();
  return replayBackend(exchanges);
}

Deno.test("replay answers call N with answer N when only the listed volatile fields differ", async () => {
  const backend = recorded([
    gatewayCall(1, "messages", claudeRequest("run-1", "fix it"), true),
    gatewayCall(2, "messages", claudeRequest("run-1", "go on"), true),
  ]);
  for (const [number, text] of [[1, "fix it"], [2, "go on"]] as const) {
    const answer = await backend.answer(
      gatewayCall(number, "messages", claudeRequest("run-2", text), true),
      signal,
    );
    assert.equal(answer.body, `${streamed}#${number}`);
    assert.equal(answer.contentType, "text/event-stream");
    assert.deepEqual(answer.usage, { input: 10, cachedInput: 0, output: number });
  }
});

Deno.test("a changed request fails with its number, the JSON path, expected and actual", async () => {
  const backend = recorded([gatewayCall(1, "messages", claudeRequest("a", "fix it"), true)]);
  const error = await backend.answer(
    gatewayCall(1, "messages", claudeRequest("b", "fix that"), true),
    signal,
  ).then(() => undefined, (error) => error);
  assert(error instanceof GatewayDivergence);
  assert.equal(error.number, 1);
  assert.equal(error.difference.path, "messages[0].content[0].text");
  assert.match(
    error.message,
    /^request 1 differs from the record at messages\[0\]\.content\[0\]\.text: expected "fix it".*, got "fix that"/,
  );
});

Deno.test("a field not listed as volatile is compared: an id the agent changes diverges", async () => {
  const body = (id: string) => ({ model: "gpt-test", messages: [], tool_choice: "auto", seed: id });
  const backend = recorded([gatewayCall(1, "chat_completions", { ...body("1"), user: "u1" })]);
  assert.equal(
    (await backend.answer(gatewayCall(1, "chat_completions", { ...body("1"), user: "u2" }), signal))
      .status,
    200,
  );
  await assert.rejects(
    backend.answer(gatewayCall(1, "chat_completions", body("2")), signal),
    (error: GatewayDivergence) => error.difference.path === "seed",
  );
});

Deno.test("a call beyond the record, or in another format, diverges", async () => {
  const backend = recorded([gatewayCall(1, "responses", { model: "m", input: "hi" })]);
  await assert.rejects(
    backend.answer(gatewayCall(2, "responses", { model: "m", input: "hi" }), signal),
    /request 2 differs from the record at \(request\): expected no request 2 \(the record has 1\), got a responses request for "m"/,
  );
  await assert.rejects(
    backend.answer(gatewayCall(1, "chat_completions", { model: "m", input: "hi" }), signal),
    /request 1 differs from the record at \(format\): expected responses, got chat_completions/,
  );
});

Deno.test("every format has masks, and masking touches nothing else", () => {
  const formats = new Set(
    Object.values(REPLAY_MASKS as Record<string, ReplayMask>).flatMap((mask) =>
      Object.keys(mask.fields ?? {})
    ),
  );
  assert.deepEqual([...formats].sort(), ["chat_completions", "messages", "responses"]);
  const body = JSON.stringify({ user: "u", input: [{ user: "kept" }], prompt_cache_key: "k" });
  assert.deepEqual(normalizedRequest("responses", body), {
    user: MASKED,
    input: [{ user: "kept" }],
    prompt_cache_key: MASKED,
  });
  assert.notEqual(
    requestFingerprint("messages", JSON.stringify({ user: "a" })),
    requestFingerprint("messages", JSON.stringify({ user: "b" })),
    "Messages has no top-level user field: it is not masked",
  );
  assert.equal(normalizedRequest("messages", "not json"), "not json");
});

Deno.test("only the masks a session names are applied: a date outside them still diverges", () => {
  const body = (date: string) =>
    JSON.stringify({ system: `Today's date is ${date}.`, metadata: { user_id: date } });
  const sent = body("2026-12-06");
  const later = body("2027-12-06");
  assert.equal(requestFingerprint("messages", sent), requestFingerprint("messages", later));
  const named = ["todays-date", "claude-code-user-id"] as const;
  assert.equal(
    requestFingerprint("messages", sent, named),
    requestFingerprint("messages", later, named),
  );
  assert.deepEqual(normalizedRequest("messages", later, ["claude-code-user-id"]), {
    system: "Today's date is 2027-12-06.",
    metadata: { user_id: MASKED },
  });
  assert.deepEqual(normalizedRequest("messages", later, []), JSON.parse(later));
});
