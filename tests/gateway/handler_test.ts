/**
 * The handler's refusals, each in the format's own error shape (wrong key 401, malformed body 400
 * naming the field, unknown path 404, backend failure 502), and the exchange hook: it hears every
 * call with its number and body before the agent sees the answer, and may replace the answer.
 */
import assert from "node:assert/strict";
import OpenAI from "openai";
import Anthropic from "@anthropic-ai/sdk";
import { gatewayHandler, MAX_REQUEST_BYTES, WIRE_CODECS } from "../../src/gateway/handler.ts";
import { KEY, serveTestGateway } from "./_gateway_server.ts";

const OPENAI_AUTH = { authorization: `Bearer ${KEY}`, "content-type": "application/json" };
const ANTHROPIC_AUTH = { "x-api-key": KEY, "content-type": "application/json" };

async function post(url: string, headers: Record<string, string>, body: string) {
  const response = await fetch(url, { method: "POST", headers, body });
  return { status: response.status, json: await response.json() };
}

Deno.test("a wrong or missing key is refused with 401 in the format's error shape", async () => {
  await using gateway = serveTestGateway();
  await assert.rejects(
    new OpenAI({ apiKey: "wrong", baseURL: `${gateway.url}/v1`, maxRetries: 0 }).chat.completions
      .create({ model: "m", messages: [{ role: "user", content: "hi" }] }),
    (error) => error instanceof OpenAI.AuthenticationError && error.status === 401,
  );
  await assert.rejects(
    new Anthropic({ apiKey: "wrong", baseURL: gateway.url, maxRetries: 0 }).messages.create({
      model: "m",
      max_tokens: 10,
      messages: [{ role: "user", content: "hi" }],
    }),
    (error) => error instanceof Anthropic.AuthenticationError && error.status === 401,
  );
  const missing = await post(`${gateway.url}/v1/responses`, {}, "{}");
  assert.equal(missing.status, 401);
  assert.equal(missing.json.error.code, "invalid_api_key");
  // The OpenAI key header does not open the Anthropic door, nor the other way round.
  const crossed = await post(`${gateway.url}/v1/chat/completions`, ANTHROPIC_AUTH, "{}");
  assert.equal(crossed.status, 401);
  assert.equal(gateway.exchanges.length, 0);
});

Deno.test("a malformed body is answered 400 naming the field, in each format", async () => {
  await using gateway = serveTestGateway();
  const cases: [string, Record<string, string>, unknown, string][] = [
    ["/v1/chat/completions", OPENAI_AUTH, { messages: [] }, "model"],
    [
      "/v1/chat/completions",
      OPENAI_AUTH,
      { model: "m", messages: [{ role: "robot" }] },
      "messages[0].role",
    ],
    [
      "/v1/chat/completions",
      OPENAI_AUTH,
      { model: "m", messages: [{ role: "assistant", tool_calls: [{ id: "c", function: {} }] }] },
      "messages[0].tool_calls[0].function.name",
    ],
    [
      "/v1/chat/completions",
      OPENAI_AUTH,
      { model: "m", messages: [], max_tokens: -3 },
      "max_tokens",
    ],
    ["/v1/responses", OPENAI_AUTH, { model: "m" }, "input"],
    [
      "/v1/responses",
      OPENAI_AUTH,
      { model: "m", input: [{ type: "function_call_output", output: "x" }] },
      "input[0].call_id",
    ],
    [
      "/v1/responses",
      OPENAI_AUTH,
      { model: "m", input: "hi", previous_response_id: "r" },
      "previous_response_id",
    ],
    ["/v1/messages", ANTHROPIC_AUTH, { model: "m", messages: [] }, "max_tokens"],
    [
      "/v1/messages",
      ANTHROPIC_AUTH,
      { model: "m", max_tokens: 5, messages: [{ role: "user", content: [{ type: "text" }] }] },
      "messages[0].content[0].text",
    ],
    ["/v1/messages", ANTHROPIC_AUTH, {
      model: "m",
      max_tokens: 5,
      messages: [],
      tools: [{ input_schema: {} }],
    }, "tools[0].name"],
  ];
  for (const [path, headers, body, field] of cases) {
    const { status, json } = await post(`${gateway.url}${path}`, headers, JSON.stringify(body));
    assert.equal(status, 400, `${path} ${field}`);
    if (path === "/v1/messages") {
      assert.equal(json.type, "error");
      assert.equal(json.error.type, "invalid_request_error");
      assert(json.error.message.startsWith(`${field} `), json.error.message);
    } else {
      assert.equal(json.error.param, field);
      assert(json.error.message.startsWith(`${field} `), json.error.message);
    }
  }
  const notJson = await post(`${gateway.url}/v1/chat/completions`, OPENAI_AUTH, "{not json");
  assert.equal(notJson.status, 400);
  assert.equal(notJson.json.error.param, "body");
  assert.equal(gateway.exchanges.length, 0);
});

Deno.test("an unknown path is 404 and a GET is 405, in JSON", async () => {
  await using gateway = serveTestGateway();
  const unknown = await post(`${gateway.url}/v1/embeddings`, OPENAI_AUTH, "{}");
  assert.equal(unknown.status, 404);
  assert.match(unknown.json.error.message, /\/v1\/embeddings/);
  const counting = await post(`${gateway.url}/v1/messages/count_tokens`, ANTHROPIC_AUTH, "{}");
  assert.equal(counting.status, 404);
  assert.equal(counting.json.error.type, "not_found_error");
  const get = await fetch(`${gateway.url}/v1/responses`, { headers: OPENAI_AUTH });
  assert.equal(get.status, 405);
  await get.body?.cancel();
});

Deno.test("a body over 32 MiB is refused with 413 before it is read whole, and the gateway goes on", async () => {
  await using gateway = serveTestGateway();
  const huge = `{"model":"m","messages":[{"role":"user","content":"${
    "x".repeat(MAX_REQUEST_BYTES)
  }"}]}`;
  const refused = await post(`${gateway.url}/v1/chat/completions`, OPENAI_AUTH, huge);
  assert.equal(refused.status, 413);
  assert.equal(refused.json.error.param, "body");
  assert.match(refused.json.error.message, /larger than 32 MiB/);
  const next = await post(`${gateway.url}/v1/chat/completions`, OPENAI_AUTH, "{}");
  assert.equal(next.status, 400); // answered again: a malformed body, named
});

Deno.test("the hook hears each call's number and body, and may replace the answer", async () => {
  await using gateway = serveTestGateway((call) =>
    call.number === 2
      ? WIRE_CODECS[call.format].error(400, "invalid_request", "budget spent: max_model_calls")
      : undefined
  );
  const client = new OpenAI({ apiKey: KEY, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
  const body = { model: "gpt-test", messages: [{ role: "user" as const, content: "one" }] };
  await assert.rejects(client.chat.completions.create(body), /the test model needs a shell tool/);
  await assert.rejects(
    client.chat.completions.create({ ...body, messages: [{ role: "user", content: "two" }] }),
    (error) => error instanceof OpenAI.BadRequestError && /budget spent/.test(error.message),
  );
  assert.deepEqual(gateway.exchanges.map(({ call }) => call.number), [1, 2]);
  assert.equal(JSON.parse(gateway.exchanges[0].call.body).messages[0].content, "one");
  assert.equal(JSON.parse(gateway.exchanges[1].call.body).messages[0].content, "two");
  // The first call's backend failed: the agent got a 502, the hook heard it.
  assert.equal(gateway.exchanges[0].answer.status, 502);
  assert.equal(gateway.exchanges[0].answer.usage, null);
});

Deno.test("the hook hears the exchange before the agent receives the answer", async () => {
  const order: string[] = [];
  const handler = gatewayHandler({
    key: KEY,
    backend: {
      spec: "fixed",
      answer: () =>
        Promise.resolve({ status: 200, contentType: "application/json", body: "{}", usage: null }),
    },
    onExchange: async () => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      order.push("hook");
    },
  });
  const response = await handler(
    new Request("http://gateway/v1/chat/completions", {
      method: "POST",
      headers: OPENAI_AUTH,
      body: JSON.stringify({ model: "m", messages: [] }),
    }),
  );
  order.push("answer");
  await response.body?.cancel();
  assert.deepEqual(order, ["hook", "answer"]);
});

Deno.test("a call whose agent stopped while its body was still arriving is refused 503 and not heard", async () => {
  let open = true;
  const heard: number[] = [];
  const handler = gatewayHandler({
    key: "k",
    backend: { spec: "none", answer: () => Promise.reject(new Error("never asked")) },
    onExchange: (call) => void heard.push(call.number),
    accepting: () => open,
  });
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      controller.enqueue(encoder.encode('{"model":"m",'));
      await new Promise((resolve) => setTimeout(resolve, 20));
      open = false; // the agent's command exits while the rest is on its way
      controller.enqueue(encoder.encode('"messages":[]}'));
      controller.close();
    },
  });
  const answer = await handler(
    new Request("http://gateway/v1/chat/completions", {
      method: "POST",
      headers: { authorization: "Bearer k" },
      body,
    }),
  );
  assert.equal(answer.status, 503);
  assert.equal(answer.headers.get("x-should-retry"), "false");
  assert.match(await answer.text(), /the agent has stopped/);
  assert.deepEqual(heard, []);
});
