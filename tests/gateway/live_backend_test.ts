import assert from "node:assert/strict";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { LogicalClock } from "../../src/core/clock.ts";
import { InfrastructureError } from "../../src/core/errors.ts";
import { SplitMix64 } from "../../src/core/rng.ts";
import { systemClock } from "../../src/core/system_clock.ts";
import { gatewayHandler } from "../../src/gateway/handler.ts";
import { liveBackend, type LiveUpstream } from "../../src/gateway/live_backend.ts";
import { DEFAULT_RETRY, type HttpDeps } from "../../src/model/_http.ts";
import { EndpointGate } from "../../src/model/endpoint_gate.ts";
import {
  MalformedResponse,
  ModelRejected,
  ModelUnavailable,
} from "../../src/model/model_errors.ts";
import { gatewayCall } from "./_calls.ts";

const KEY = "sk-real-0123456789-SECRET";

type ModelRetryInfo = Parameters<NonNullable<HttpDeps["onRetry"]>>[0];
const signal = () => AbortSignal.timeout(30_000);

interface Received {
  path: string;
  headers: Headers;
  body: string;
}

/** A loopback upstream: records each request, answers with the next reply (the last repeats). */
function upstream(replies: Array<(request: Received) => Response | Promise<Response>>) {
  const received: Received[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    const got = {
      path: new URL(request.url).pathname,
      headers: request.headers,
      body: await request.text(),
    };
    received.push(got);
    return replies[Math.min(received.length, replies.length) - 1](got);
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    received,
    [Symbol.asyncDispose]: () => server.shutdown(),
  };
}

function http(retries: ModelRetryInfo[] = [], clock = new LogicalClock()): HttpDeps {
  return {
    clock,
    rng: new SplitMix64(3),
    retry: DEFAULT_RETRY,
    secrets: [],
    onRetry: (retry) => retries.push(retry),
  };
}

function openAi(url: string): LiveUpstream {
  return { provider: "openai", model: "gpt-test", baseUrl: `${url}/v1`, apiKey: KEY };
}

Deno.test("live: the body goes upstream unchanged with the real key; a key the upstream echoes is redacted", async () => {
  await using server = upstream([(request) =>
    Response.json({
      choices: [{
        message: { role: "assistant", content: `you sent ${request.headers.get("authorization")}` },
      }],
      usage: {
        prompt_tokens: 30,
        completion_tokens: 4,
        prompt_tokens_details: { cached_tokens: 10 },
      },
    })]);
  const call = gatewayCall(1, "chat_completions", {
    model: "gpt-test",
    messages: [{ role: "user", content: "hi" }],
  });
  const answer = await liveBackend(openAi(server.url), http()).answer(call, signal());
  const [received] = server.received;
  assert.equal(received.path, "/v1/chat/completions");
  assert.equal(received.headers.get("authorization"), `Bearer ${KEY}`);
  assert.equal(received.body, call.body, "the agent's body, byte for byte");
  assert.equal(answer.status, 200);
  assert(!answer.body.includes(KEY), "the real key never reaches the agent");
  assert.match(JSON.parse(answer.body).choices[0].message.content, /you sent Bearer \[redacted\]/);
  assert.deepEqual(answer.usage, { input: 20, cachedInput: 10, output: 4 });
});

Deno.test("live: an Anthropic stream is read whole and answered with its usage", async () => {
  const stream = [
    `event: message_start\ndata: {"type":"message_start","message":{"usage":{"input_tokens":9,"output_tokens":1}}}\n\n`,
    `event: message_delta\ndata: {"type":"message_delta","delta":{},"usage":{"output_tokens":6}}\n\n`,
    `event: message_stop\ndata: {"type":"message_stop"}\n\n`,
  ];
  await using server = upstream([
    () =>
      new Response(ReadableStream.from(stream.map((part) => new TextEncoder().encode(part))), {
        headers: { "content-type": "text/event-stream" },
      }),
  ]);
  const backend = liveBackend(
    { provider: "anthropic", model: "claude-test", baseUrl: server.url, apiKey: KEY },
    http(),
  );
  const answer = await backend.answer(
    gatewayCall(1, "messages", { model: "claude-test", stream: true, messages: [] }, true),
    signal(),
  );
  const [received] = server.received;
  assert.equal(received.path, "/v1/messages");
  assert.equal(received.headers.get("x-api-key"), KEY);
  assert.equal(received.headers.get("anthropic-version"), "2023-06-01");
  assert.equal(answer.contentType, "text/event-stream");
  assert.equal(answer.body, stream.join(""));
  assert.deepEqual(answer.usage, { input: 9, cachedInput: 0, output: 6 });
});

Deno.test("live: a 400 is the agent's answer, as sent; a 401 is Verdict's key, never the agent's", async () => {
  const refusal = JSON.stringify({
    error: { message: "messages: required", type: "invalid_request_error" },
  });
  await using server = upstream([
    () => new Response(refusal, { status: 400, headers: { "content-type": "application/json" } }),
    (request) =>
      Response.json({ error: { message: `bad key ${request.headers.get("authorization")}` } }, {
        status: 401,
      }),
  ]);
  const backend = liveBackend(openAi(server.url), http());
  const call = gatewayCall(1, "responses", { model: "gpt-test" });
  const answer = await backend.answer(call, signal());
  assert.equal(answer.status, 400);
  assert.equal(answer.body, refusal);
  assert.equal(answer.usage, null);
  const error = await backend.answer(call, signal()).then(() => undefined, (error) => error);
  assert(error instanceof ModelRejected);
  assert.equal(error.exitCode, 3);
  assert(!error.message.includes(KEY), error.message);
  assert.match(error.message, /HTTP 401.*bad key Bearer \[redacted\]/);
});

Deno.test("live: a 503 is retried with backoff on the injected clock; the retry is reported", async () => {
  await using server = upstream([
    () => new Response("overloaded", { status: 503 }),
    () => Response.json({ object: "response", usage: { input_tokens: 5, output_tokens: 2 } }),
  ]);
  const retries: ModelRetryInfo[] = [];
  const answer = await liveBackend(openAi(server.url), http(retries)).answer(
    gatewayCall(1, "responses", { model: "gpt-test" }),
    signal(),
  );
  assert.equal(answer.status, 200);
  assert.equal(server.received.length, 2);
  assert.equal(retries.length, 1);
  assert.equal(retries[0].status, 503);
  assert.deepEqual(answer.usage, { input: 5, cachedInput: 0, output: 2 });
});

Deno.test("live: a hung upstream is an infrastructure error after the request timeout, never the agent's", async () => {
  const release = new AbortController();
  await using server = upstream([
    () =>
      new Promise<Response>((resolve) =>
        release.signal.addEventListener("abort", () => resolve(new Response("late")))
      ),
  ]);
  const deps: HttpDeps = {
    ...http(),
    clock: systemClock,
    requestTimeoutMs: 150,
    retry: { maxAttempts: 2, maxTotalMs: 5_000, baseDelayMs: 10, maxDelayMs: 10 },
  };
  try {
    const error = await liveBackend(openAi(server.url), deps).answer(
      gatewayCall(1, "chat_completions", { model: "gpt-test" }),
      signal(),
    ).then(() => undefined, (error) => error);
    assert(error instanceof ModelUnavailable && error instanceof InfrastructureError);
    assert.equal(error.exitCode, 3);
    assert.match(
      error.message,
      /after 2 attempts: no response within 0\.15 s \(--request-timeout\)/,
    );
    assert(!error.message.includes(KEY));
    assert.equal(server.received.length, 2);
  } finally {
    release.abort();
  }
});

Deno.test("live: a format the provider does not speak gets a 404 in the agent's format", async () => {
  await using server = upstream([() => new Response("unreachable")]);
  const answer = await liveBackend(openAi(server.url), http()).answer(
    gatewayCall(1, "messages", { model: "claude" }),
    signal(),
  );
  assert.equal(answer.status, 404);
  assert.equal(JSON.parse(answer.body).error.type, "not_found_error");
  assert.equal(server.received.length, 0);
});

Deno.test("live: the beta features Claude Code asks for (anthropic-beta) go upstream with its body", async () => {
  await using server = upstream([
    () =>
      Response.json({ type: "message", content: [], usage: { input_tokens: 1, output_tokens: 1 } }),
  ]);
  const handler = gatewayHandler({
    key: "dummy",
    backend: liveBackend(
      { provider: "anthropic", model: "claude-test", baseUrl: server.url, apiKey: KEY },
      http(),
    ),
  });
  const betas = "context-management-2025-06-27,interleaved-thinking-2025-05-14";
  const body = JSON.stringify({
    model: "claude-test",
    max_tokens: 10,
    messages: [{ role: "user", content: "hi" }],
    context_management: { edits: [] },
  });
  const response = await handler(
    new Request("http://gateway/v1/messages?beta=true", {
      method: "POST",
      body,
      headers: { "x-api-key": "dummy", "anthropic-beta": betas },
    }),
  );
  assert.equal(response.status, 200, await response.clone().text());
  await response.body?.cancel();
  const [received] = server.received;
  assert.equal(received.headers.get("anthropic-beta"), betas);
  assert.equal(received.body, body);
});

Deno.test("live: a 200 that is not JSON, and streams that stop before their end event, are the provider's failure and not retried", async () => {
  const sse = (events: string) =>
    new Response(events, { headers: { "content-type": "text/event-stream" } });
  const cases: Array<[string, Response, "chat_completions" | "messages", boolean, RegExp]> = [
    [
      "malformed JSON",
      new Response('{"choices": [', { headers: { "content-type": "application/json" } }),
      "chat_completions",
      false,
      /malformed response from openai: the body is not JSON: \{"choices": \[/,
    ],
    [
      "a chat stream without data: [DONE]",
      sse('data: {"choices":[{"delta":{"content":"hi"}}]}\n\n'),
      "chat_completions",
      true,
      /the event stream stopped before data: \[DONE\]/,
    ],
    [
      "a messages stream without message_stop",
      sse('event: message_start\ndata: {"type":"message_start","message":{}}\n\n'),
      "messages",
      true,
      /the event stream stopped before message_stop/,
    ],
  ];
  for (const [name, reply, format, stream, expected] of cases) {
    await using server = upstream([() => reply]);
    const target = format === "messages"
      ? { ...openAi(server.url), provider: "anthropic" as const, baseUrl: server.url }
      : openAi(server.url);
    const error = await liveBackend(target, http()).answer(
      gatewayCall(1, format, { model: "m", stream }, stream),
      signal(),
    ).then(() => undefined, (error) => error);
    assert(error instanceof MalformedResponse, `${name}: ${error}`);
    assert.match(error.message, expected, name);
    assert.equal(error.billed, true, `${name}: a success, perhaps billed, is charged in full`);
    assert.equal(
      server.received.length,
      1,
      `${name} is not retried: it was answered, and paid for`,
    );
  }
});

Deno.test("live: a connection cut mid-stream is retried, then the provider is unavailable", async () => {
  await using server = upstream([() => {
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('data: {"choices":[]}\n\n'));
        controller.error(new Error("cut"));
      },
    });
    return new Response(body, { headers: { "content-type": "text/event-stream" } });
  }]);
  const deps = { ...http(), retry: { ...DEFAULT_RETRY, maxAttempts: 2 } };
  const error = await liveBackend(openAi(server.url), deps).answer(
    gatewayCall(1, "chat_completions", { model: "m", stream: true }, true),
    signal(),
  ).then(() => undefined, (error) => error);
  assert(error instanceof ModelUnavailable, String(error));
  assert.match(error.message, /after 2 attempts: connection failed/);
  assert.equal(server.received.length, 2);
});

Deno.test("a provider's failure reaches an official SDK as a 502 it does not retry: the upstream sees the gateway's attempts only", async () => {
  await using server = upstream([
    () => Response.json({ error: { message: "down" } }, { status: 500 }),
  ]);
  const retries = { ...DEFAULT_RETRY, maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 1 };
  for (const provider of ["openai", "anthropic"] as const) {
    const failures: unknown[] = [];
    const handler = gatewayHandler({
      key: "dummy",
      backend: liveBackend(
        provider === "openai"
          ? openAi(server.url)
          : { ...openAi(server.url), provider, baseUrl: server.url },
        { ...http(), clock: systemClock, retry: retries },
      ),
      onExchange: (_call, _answer, failure) => void failures.push(failure),
    });
    let served = 0;
    await using gateway = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen() {} },
      (request) => {
        served++;
        return handler(request);
      },
    );
    const url = `http://127.0.0.1:${gateway.addr.port}`;
    const before = server.received.length;
    // The SDKs' own defaults: two retries of a 5xx, unless the answer says not to.
    const error = await (provider === "openai"
      ? new OpenAI({ apiKey: "dummy", baseURL: `${url}/v1` }).chat.completions.create({
        model: "gpt-test",
        messages: [{ role: "user", content: "hi" }],
      })
      : new Anthropic({ apiKey: "dummy", baseURL: url }).messages.create({
        model: "claude-test",
        max_tokens: 16,
        messages: [{ role: "user", content: "hi" }],
      })).then(() =>
        undefined, (error) => error);
    assert.equal((error as { status?: number })?.status, 502, `${provider}: ${error}`);
    assert.match(String((error as Error).message), /HTTP 500/);
    assert.equal(served, 1, `${provider}'s SDK did not retry`);
    assert.equal(server.received.length - before, 2, "the gateway's two attempts, no more");
    assert(failures[0] instanceof ModelUnavailable);
  }
});

Deno.test("live: a Chat Completions stream that did not ask for usage is metered exactly, and the agent gets the stream it asked for; a budget's cap goes upstream", async () => {
  const chunk = (data: unknown) => `data: ${JSON.stringify(data)}\n\n`;
  const usage = {
    prompt_tokens: 42,
    completion_tokens: 7,
    prompt_tokens_details: { cached_tokens: 2 },
  };
  await using server = upstream([(request) => {
    const asked = JSON.parse(request.body).stream_options?.include_usage === true;
    const stream = chunk({
      choices: [{ index: 0, delta: { content: "hi" } }],
      ...(asked ? { usage: null } : {}),
    }) +
      (asked ? chunk({ choices: [], usage }) : "") + "data: [DONE]\n\n";
    return new Response(stream, { headers: { "content-type": "text/event-stream" } });
  }]);
  const call = {
    ...gatewayCall(
      1,
      "chat_completions",
      { model: "gpt-test", stream: true, max_tokens: 9000 },
      true,
    ),
    outputCap: 700,
  };
  const answer = await liveBackend(openAi(server.url), http()).answer(call, signal());
  const sent = JSON.parse(server.received[0].body);
  assert.deepEqual(sent.stream_options, { include_usage: true });
  assert.equal(sent.max_tokens, 700, "the budget's cap, in the field the agent used");
  assert.deepEqual(answer.usage, { input: 40, cachedInput: 2, output: 7 });
  assert.equal(
    answer.body,
    'data: {"choices":[{"index":0,"delta":{"content":"hi"}}]}\n\ndata: [DONE]\n\n',
    "no usage in the stream the agent did not ask it of",
  );
});

Deno.test("live: with a gate of 2 (--max-connections 2), a 429-ing upstream never sees more than 2 calls at once, and all get through", async () => {
  let out = 0;
  let most = 0;
  let served = 0;
  await using server = upstream([async () => {
    most = Math.max(most, ++out);
    await new Promise((resolve) => setTimeout(resolve, 20));
    out--;
    return ++served <= 4
      ? new Response("slow down", { status: 429, headers: { "retry-after-ms": "30" } })
      : Response.json({ object: "response", usage: { input_tokens: 1, output_tokens: 1 } });
  }]);
  const deps: HttpDeps = {
    ...http(),
    clock: systemClock,
    retry: { maxAttempts: 10, maxTotalMs: 10_000, baseDelayMs: 1, maxDelayMs: 1 },
    gate: new EndpointGate(2, systemClock),
  };
  const backend = liveBackend(openAi(server.url), deps);
  const answers = await Promise.all(
    Array.from(
      { length: 6 },
      (_, index) =>
        backend.answer(gatewayCall(index + 1, "responses", { model: "gpt-test" }), signal()),
    ),
  );
  assert.deepEqual(answers.map((answer) => answer.status), Array(6).fill(200));
  assert(most >= 1 && most <= 2, `${most} calls were out at once`);
  assert.equal(server.received.length, 10, "4 refusals, 6 answers");
});

Deno.test("live: a 400 to a request whose cap the gateway lowered is not the agent's: the provider refused what the gateway sent", async () => {
  const refusal = JSON.stringify({ error: { message: "max_tokens: too small for thinking" } });
  await using server = upstream([
    () => new Response(refusal, { status: 400, headers: { "content-type": "application/json" } }),
  ]);
  const backend = liveBackend(openAi(server.url), http());
  const call = gatewayCall(1, "chat_completions", { model: "gpt-test", max_tokens: 9000 });
  const error = await backend.answer({ ...call, outputCap: 700 }, signal())
    .then(() => undefined, (error) => error);
  assert(error instanceof ModelRejected, String(error));
  assert.match(
    error.message,
    /HTTP 400: .*too small.*the gateway had lowered the output cap to 700/,
  );
  // The same 400 to the agent's own request is the agent's answer, as sent.
  const answer = await backend.answer(call, signal());
  assert.deepEqual([answer.status, answer.body], [400, refusal]);
});

Deno.test("live: a hostile agent's own bad request stays its answer even when the gateway lowered its cap", async () => {
  const refusal = JSON.stringify({ error: { message: "tools[0].function.name: invalid" } });
  await using server = upstream([
    () => new Response(refusal, { status: 400, headers: { "content-type": "application/json" } }),
  ]);
  const call = gatewayCall(1, "chat_completions", { model: "gpt-test", max_tokens: 999_999 });
  const answer = await liveBackend(openAi(server.url), http()).answer(
    { ...call, outputCap: 700 },
    signal(),
  );
  assert.deepEqual([answer.status, answer.body], [400, refusal], "not an infrastructure error");
});
