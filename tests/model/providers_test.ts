import assert from "node:assert/strict";
import { LogicalClock } from "../../src/core/clock.ts";
import { SplitMix64 } from "../../src/core/rng.ts";
import { anthropicModel } from "../../src/model/anthropic.ts";
import { DEFAULT_RETRY, type HttpDeps, type RetryPolicy } from "../../src/model/_http.ts";
import { systemClock } from "../../src/core/system_clock.ts";
import type { ModelRequest } from "../../src/model/model.ts";
import { openAiModel } from "../../src/model/openai.ts";
import { anthropicReply, fakeProvider, openAiReply } from "./_fake_provider.ts";
import { stubbornProvider } from "./_stubborn_provider.ts";

const KEY = "sk-test-0123456789-SECRET";
const request: ModelRequest = {
  system: "You fix bugs.",
  messages: [
    { role: "user", content: "Fix it." },
    {
      role: "assistant",
      content: "Reading two files.",
      toolCalls: [
        { id: "c1", name: "read_file", arguments: '{"path":"a.py"}' },
        { id: "c2", name: "read_file", arguments: '{"path":"b.py"}' },
      ],
    },
    { role: "tool", toolCallId: "c1", name: "read_file", content: "A", isError: false },
    { role: "tool", toolCallId: "c2", name: "read_file", content: "no such file", isError: true },
  ],
  tools: [{
    name: "read_file",
    description: "read",
    parameters: { type: "object", properties: { path: { type: "string" } } },
  }],
  maxOutputTokens: 512,
};

function http(retries: Array<Record<string, unknown>> = [], clock = new LogicalClock()): HttpDeps {
  return {
    clock,
    rng: new SplitMix64(7),
    retry: DEFAULT_RETRY,
    secrets: [],
    onRetry: (retry) => retries.push(retry),
  };
}
const signal = () => AbortSignal.timeout(30_000);

Deno.test("openai: the request is Chat Completions with tools; a multi-tool turn and cached usage come back", async () => {
  await using server = fakeProvider([
    openAiReply(null, [
      { id: "call_a", name: "read_file", arguments: '{"path":"x.py"}' },
      { id: "call_b", name: "shell", arguments: '{"command":"ls"}' },
    ]),
  ]);
  const model = openAiModel(
    { model: "gpt-test", baseUrl: `${server.url}/v1`, apiKey: KEY },
    http(),
  );
  const response = await model.complete(request, { signal: signal() });
  assert.deepEqual(response.toolCalls.map((call) => call.name), ["read_file", "shell"]);
  assert.equal(response.finish, "tool_calls");
  assert.deepEqual(response.usage, { input: 60, cachedInput: 40, output: 20 });
  const [sent] = server.received;
  assert.equal(sent.path, "/v1/chat/completions");
  assert.equal(sent.headers.get("authorization"), `Bearer ${KEY}`);
  assert.equal(sent.body.model, "gpt-test");
  assert.equal(sent.body.max_completion_tokens, 512);
  const messages = sent.body.messages as Record<string, unknown>[];
  assert.deepEqual(messages.map((message) => message.role), [
    "system",
    "user",
    "assistant",
    "tool",
    "tool",
  ]);
  assert.deepEqual((messages[2].tool_calls as { id: string }[]).map((call) => call.id), [
    "c1",
    "c2",
  ]);
  assert.equal(messages[4].tool_call_id, "c2");
  assert.deepEqual((sent.body.tools as { type: string }[])[0].type, "function");
});

Deno.test("anthropic: the system prompt has its own field, tool results are user blocks, cache reads and writes count", async () => {
  await using server = fakeProvider([
    anthropicReply("Two at once.", [
      { id: "toolu_1", name: "read_file", input: { path: "x.py" } },
      { id: "toolu_2", name: "list_dir", input: {} },
    ]),
  ]);
  const model = anthropicModel({ model: "claude-test", baseUrl: server.url, apiKey: KEY }, http());
  const response = await model.complete(request, { signal: signal() });
  assert.deepEqual(response.toolCalls, [
    { id: "toolu_1", name: "read_file", arguments: '{"path":"x.py"}' },
    { id: "toolu_2", name: "list_dir", arguments: "{}" },
  ]);
  assert.deepEqual(
    response.usage,
    { input: 80, cachedInput: 30, cacheWriteInput: 5, output: 20 },
    "cache writes are counted apart from uncached input: they are priced differently",
  );
  const [sent] = server.received;
  assert.equal(sent.path, "/v1/messages");
  assert.equal(sent.headers.get("x-api-key"), KEY);
  assert.equal(sent.headers.get("anthropic-version"), "2023-06-01");
  assert.deepEqual(sent.body.system, [
    { type: "text", text: "You fix bugs.", cache_control: { type: "ephemeral" } },
  ]);
  const messages = sent.body.messages as { role: string; content: Record<string, unknown>[] }[];
  assert.deepEqual(messages.map((message) => message.role), ["user", "assistant", "user"]);
  assert.deepEqual(messages[1].content.map((block) => block.type), [
    "text",
    "tool_use",
    "tool_use",
  ]);
  assert.deepEqual(messages[2].content, [
    { type: "tool_result", tool_use_id: "c1", content: "A" },
    {
      type: "tool_result",
      tool_use_id: "c2",
      content: "no such file",
      is_error: true,
      cache_control: { type: "ephemeral" },
    },
  ]);
  assert.deepEqual(
    (sent.body.tools as Record<string, unknown>[])[0].input_schema,
    request.tools[0].parameters,
  );
});

Deno.test("429 then success: the retry honours Retry-After and records itself", async () => {
  for (const provider of ["openai", "anthropic"] as const) {
    const limited = {
      status: 429,
      body: { error: { type: "rate_limit_error", message: "slow down" } },
      headers: { "retry-after": "7" },
    };
    await using server = fakeProvider([
      limited,
      provider === "openai" ? openAiReply("done") : anthropicReply("done"),
    ]);
    const retries: Record<string, unknown>[] = [];
    const clock = new LogicalClock({ tick: 0 });
    const model = provider === "openai"
      ? openAiModel({ model: "m", baseUrl: `${server.url}/v1`, apiKey: KEY }, http(retries, clock))
      : anthropicModel({ model: "m", baseUrl: server.url, apiKey: KEY }, http(retries, clock));
    const response = await model.complete(request, { signal: signal() });
    assert.equal(response.content, "done");
    assert.equal(server.received.length, 2);
    assert.deepEqual(retries, [{ attempt: 1, status: 429, message: "slow down", waitMs: 7000 }]);
    assert.equal(clock.monotonic(), 7000, "waited what Retry-After asked, on the injected clock");
  }
});

Deno.test("500 until the retries run out: an infrastructure error that keeps the provider's message", async () => {
  await using server = fakeProvider(
    [],
    () => ({ status: 500, body: { error: { message: `upstream broke for ${KEY}` } } }),
  );
  const retries: Record<string, unknown>[] = [];
  const model = openAiModel(
    { model: "m", baseUrl: `${server.url}/v1`, apiKey: KEY },
    http(retries),
  );
  await assert.rejects(model.complete(request, { signal: signal() }), (error: Error) => {
    assert.equal(error.name, "ModelUnavailable");
    assert.equal((error as unknown as { exitCode: number }).exitCode, 3);
    assert.match(
      error.message,
      /^openai endpoint unavailable after 5 attempts: HTTP 500: upstream broke for \[redacted\]$/,
    );
    return true;
  });
  assert.equal(server.received.length, DEFAULT_RETRY.maxAttempts);
  assert.equal(retries.length, DEFAULT_RETRY.maxAttempts - 1);
  const waits = retries.map((retry) => retry.waitMs as number);
  assert.ok(
    // Each wait is drawn from [backoff / 2, backoff) and the backoff doubles: strictly growing.
    waits.every((wait, index) => index === 0 || wait > waits[index - 1]) &&
      waits.at(-1)! > 4 * waits[0],
    `backoff grows: ${waits}`,
  );
});

Deno.test("backoff jitter comes from the seeded RNG: same seed, same waits", async () => {
  const waitsFor = async (seed: number) => {
    await using server = fakeProvider([], () => ({ status: 503, body: "overloaded" }));
    const retries: Record<string, unknown>[] = [];
    const model = openAiModel({ model: "m", baseUrl: `${server.url}/v1`, apiKey: "" }, {
      ...http(retries),
      rng: new SplitMix64(seed),
    });
    await model.complete(request, { signal: signal() }).catch(() => {});
    return retries.map((retry) => retry.waitMs);
  };
  assert.deepEqual(await waitsFor(1), await waitsFor(1));
  assert.notDeepEqual(await waitsFor(1), await waitsFor(2));
});

Deno.test("malformed envelopes are classified errors; bad tool-argument JSON is passed through to the loop", async () => {
  const cases: [string, unknown, RegExp][] = [
    [
      "openai",
      '{"choices": [{"message": {"content": "cut of',
      /malformed response from openai: the body is not valid JSON/,
    ],
    [
      "openai",
      { id: "x", object: "chat.completion" },
      /malformed response from openai: no choices in the response/,
    ],
    ["openai", { choices: [{ finish_reason: "stop" }] }, /choices\[0\] has no message/],
    [
      "anthropic",
      { id: "x", type: "message", role: "assistant" },
      /malformed response from anthropic: no content in the response/,
    ],
    [
      "anthropic",
      "not json at all",
      /malformed response from anthropic: the body is not valid JSON/,
    ],
  ];
  for (const [provider, body, expected] of cases) {
    await using server = fakeProvider([{ body }]);
    const model = provider === "openai"
      ? openAiModel({ model: "m", baseUrl: `${server.url}/v1`, apiKey: "" }, http())
      : anthropicModel({ model: "m", baseUrl: server.url, apiKey: "k" }, http());
    await assert.rejects(model.complete(request, { signal: signal() }), (error: Error) => {
      assert.equal(error.name, "MalformedResponse");
      assert.match(error.message, expected);
      return true;
    });
    assert.equal(server.received.length, 1, "a malformed body is not retried");
  }
  await using server = fakeProvider([
    openAiReply(null, [{
      id: "c",
      name: "write_file",
      arguments: '{"path": "a.py", "content": "',
    }]),
  ]);
  const model = openAiModel({ model: "m", baseUrl: `${server.url}/v1`, apiKey: "" }, http());
  const response = await model.complete(request, { signal: signal() });
  assert.equal(
    response.toolCalls[0].arguments,
    '{"path": "a.py", "content": "',
    "kept as written, for the loop to refuse",
  );
});

Deno.test("a rejected request (401) is not retried and its message is redacted", async () => {
  await using server = fakeProvider([{
    status: 401,
    body: { error: { message: `Incorrect API key provided: ${KEY}` } },
  }]);
  const model = openAiModel({ model: "m", baseUrl: `${server.url}/v1`, apiKey: KEY }, http());
  await assert.rejects(model.complete(request, { signal: signal() }), (error: Error) => {
    assert.equal(error.name, "ModelRejected");
    assert.equal(
      error.message,
      "openai rejected the request: HTTP 401: Incorrect API key provided: [redacted]",
    );
    return true;
  });
  assert.equal(server.received.length, 1);
});

Deno.test("a slow response is abandoned when the signal (the deadline) fires", async () => {
  await using server = fakeProvider([{ ...openAiReply("late"), delayMs: 5000 }]);
  const model = openAiModel({ model: "m", baseUrl: `${server.url}/v1`, apiKey: "" }, http());
  const started = performance.now();
  await assert.rejects(model.complete(request, { signal: AbortSignal.timeout(300) }));
  assert.ok(
    performance.now() - started < 3000,
    "returned at the deadline, not when the server answered",
  );
});

/** Quick retries on the real clock, for the tests that need real time to pass. */
const QUICK: RetryPolicy = { maxAttempts: 3, maxTotalMs: 10_000, baseDelayMs: 10, maxDelayMs: 50 };

function realTime(retries: Array<Record<string, unknown>>, requestTimeoutMs = 300): HttpDeps {
  return { ...http(retries, undefined), clock: systemClock, retry: QUICK, requestTimeoutMs };
}

Deno.test("a provider that accepts the request and never answers: each attempt times out, is retried, then the endpoint is unavailable", async () => {
  for (
    const [misbehaviour, expected] of [
      [
        "hang",
        /^openai endpoint unavailable after 3 attempts: no response within 0.3 s \(--request-timeout\)$/,
      ],
      [
        "drip",
        /^openai endpoint unavailable after 3 attempts: the response \(HTTP 200\) did not finish arriving within 0.3 s \(--request-timeout\)$/,
      ],
    ] as const
  ) {
    await using server = stubbornProvider(misbehaviour);
    const retries: Record<string, unknown>[] = [];
    const model = openAiModel(
      { model: "m", baseUrl: `${server.url}/v1`, apiKey: "" },
      realTime(retries),
    );
    const started = performance.now();
    await assert.rejects(model.complete(request, { signal: signal() }), (error: Error) => {
      assert.equal(error.name, "ModelUnavailable", error.message);
      assert.equal((error as unknown as { exitCode: number }).exitCode, 3);
      assert.match(error.message, expected);
      return true;
    });
    // Three 0.3 s attempts take about 1 s; the server never answers, so any bound shows they ended.
    assert.ok(performance.now() - started < 15_000, `${misbehaviour}: three 0.3 s attempts`);
    assert.equal(server.requests, 3, `${misbehaviour}: every attempt reached the server`);
    assert.deepEqual(retries.map((retry) => retry.status), [null, null]);
  }
});

Deno.test("a reset keep-alive connection is not silently re-sent: the server saw exactly the attempts recorded; the cause is in the message", async () => {
  const reply = JSON.stringify(openAiReply("first").body);
  await using server = stubbornProvider("drop-after-first", reply);
  const retries: Record<string, unknown>[] = [];
  const model = openAiModel(
    { model: "m", baseUrl: `${server.url}/v1`, apiKey: "" },
    realTime(retries),
  );
  assert.equal((await model.complete(request, { signal: signal() })).content, "first");
  await assert.rejects(model.complete(request, { signal: signal() }), (error: Error) => {
    assert.equal(error.name, "ModelUnavailable");
    assert.match(
      error.message,
      /after 3 attempts: connection failed: fetch failed: .*connection closed before message completed/,
    );
    return true;
  });
  assert.equal(retries.length, 2);
  assert.equal(server.requests, 1 + 3, "one answered request, then the three recorded attempts");
});

Deno.test("a refused connection says so", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  const model = openAiModel(
    { model: "m", baseUrl: `http://127.0.0.1:${port}/v1`, apiKey: "" },
    realTime([]),
  );
  await assert.rejects(model.complete(request, { signal: signal() }), (error: Error) => {
    assert.match(error.message, /after 3 attempts: connection failed: .*Connection refused/);
    return true;
  });
});

Deno.test("retried as the official SDKs retry: 408 and 409 as well as 429 and 5xx; x-should-retry obeyed", async () => {
  const failing = (status: number, headers: Record<string, string> = {}) => ({
    status,
    body: { error: { message: `status ${status}` } },
    headers,
  });
  const cases: [ReturnType<typeof failing>, number, string][] = [
    [failing(408), 2, "done"],
    [failing(409), 2, "done"],
    [failing(400, { "x-should-retry": "true" }), 2, "done"],
    [failing(503, { "x-should-retry": "false" }), 1, "ModelUnavailable"],
    [failing(409, { "x-should-retry": "false" }), 1, "ModelRejected"],
    [failing(404), 1, "ModelRejected"],
  ];
  for (const [reply, requests, outcome] of cases) {
    await using server = fakeProvider([reply, openAiReply("done")]);
    const model = openAiModel({ model: "m", baseUrl: `${server.url}/v1`, apiKey: "" }, http());
    const result = await model.complete(request, { signal: signal() }).then(
      (response) => response.content,
      (error: Error) => {
        if (error.name === "ModelUnavailable") {
          assert.match(
            error.message,
            /after 1 attempt: HTTP 503: status 503 \(x-should-retry: false\)/,
          );
        }
        return error.name;
      },
    );
    assert.equal(result, outcome, `HTTP ${reply.status} ${JSON.stringify(reply.headers)}`);
    assert.equal(server.received.length, requests, `HTTP ${reply.status}`);
  }
});

Deno.test("a Retry-After longer than the retry budget: given up at once, and the message names the header", async () => {
  for (const [header, value] of [["retry-after", "600"], ["retry-after-ms", "300000"]]) {
    await using server = fakeProvider([{
      status: 429,
      body: { error: { message: "slow down" } },
      headers: { [header]: value },
    }]);
    const clock = new LogicalClock({ tick: 0 });
    const model = openAiModel(
      { model: "m", baseUrl: `${server.url}/v1`, apiKey: "" },
      http([], clock),
    );
    await assert.rejects(model.complete(request, { signal: signal() }), (error: Error) => {
      assert.equal(
        error.message,
        `openai endpoint unavailable after 1 attempt: HTTP 429: slow down; the provider asked to ` +
          `wait ${Number(value) / (header === "retry-after" ? 1 : 1000)} s (${header} header), ` +
          `more than the 120 s retry budget allows`,
      );
      return true;
    });
    assert.equal(server.received.length, 1);
    assert.equal(clock.monotonic(), 0, "no time spent waiting for nothing");
  }
});

Deno.test("openai finish_reason length without a tool call reads as a cut answer", async () => {
  const cut = openAiReply("The fix is to chan");
  (cut.body as { choices: { finish_reason: string }[] }).choices[0].finish_reason = "length";
  await using server = fakeProvider([cut]);
  const model = openAiModel({ model: "m", baseUrl: `${server.url}/v1`, apiKey: "" }, http());
  assert.equal((await model.complete(request, { signal: signal() })).finish, "length");
});
