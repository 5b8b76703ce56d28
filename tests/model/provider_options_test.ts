import assert from "node:assert/strict";
import { canonicalJson } from "../../src/core/canonical_json.ts";
import { LogicalClock } from "../../src/core/clock.ts";
import { sha256Hex } from "../../src/core/hash.ts";
import { SplitMix64 } from "../../src/core/rng.ts";
import type { HttpDeps } from "../../src/model/_http.ts";
import { anthropicModel } from "../../src/model/anthropic.ts";
import { fingerprint } from "../../src/model/fingerprint.ts";
import type { ModelRequest } from "../../src/model/model.ts";
import { openAiModel } from "../../src/model/openai.ts";
import {
  checkProviderOptions,
  DEFAULT_RETRIES,
  parseHeaders,
  type ProviderOptions,
  requestParameters,
  retryPolicy,
} from "../../src/model/provider_options.ts";
import { anthropicReply, fakeProvider, openAiReply } from "./_fake_provider.ts";

const KEY = "sk-test-0123456789-SECRET";
const GATEWAY_TOKEN = "gw-token-77aa88bb99cc";
const base: ModelRequest = {
  system: "You fix bugs.",
  messages: [{ role: "user", content: "Fix it." }],
  tools: [],
  maxOutputTokens: 300,
};
const signal = () => AbortSignal.timeout(30_000);

function http(retries = DEFAULT_RETRIES): HttpDeps {
  return {
    clock: new LogicalClock(),
    rng: new SplitMix64(7),
    retry: retryPolicy(retries),
    secrets: [],
  };
}

/** A request as the loop agent makes it under these options. */
function withOptions(options: ProviderOptions): ModelRequest {
  const parameters = requestParameters(options);
  return {
    ...base,
    maxOutputTokens: options.maxOutputTokens ?? base.maxOutputTokens,
    ...(parameters ? { parameters } : {}),
  };
}

Deno.test("openai: temperature, the output budget and extra headers reach the wire; a chat model keeps the system role", async () => {
  await using server = fakeProvider([openAiReply("done")]);
  const headers = parseHeaders(["X-Team: qa", `Authorization: Bearer ${GATEWAY_TOKEN}`]);
  const model = openAiModel(
    { model: "gpt-4o", baseUrl: `${server.url}/v1`, apiKey: KEY, headers },
    http(),
  );
  await model.complete(
    withOptions({ temperature: 0.3, maxOutputTokens: 777, headers }),
    { signal: signal() },
  );
  const [sent] = server.received;
  assert.equal(sent.body.temperature, 0.3);
  assert.equal(sent.body.max_completion_tokens, 777);
  assert.equal(sent.body.reasoning_effort, undefined);
  assert.equal((sent.body.messages as { role: string }[])[0].role, "system");
  assert.equal(sent.headers.get("x-team"), "qa");
  assert.equal(
    sent.headers.get("authorization"),
    `Bearer ${GATEWAY_TOKEN}`,
    "the user's header wins over the key's",
  );
});

Deno.test("openai: a reasoning model gets the developer role and reasoning_effort, and no temperature unless asked", async () => {
  await using server = fakeProvider([openAiReply("done"), openAiReply("done")]);
  for (const name of ["o3-mini", "gpt-5"]) {
    const model = openAiModel({ model: name, baseUrl: `${server.url}/v1`, apiKey: KEY }, http());
    await model.complete(withOptions({ reasoningEffort: "high" }), { signal: signal() });
  }
  for (const sent of server.received) {
    assert.equal((sent.body.messages as { role: string }[])[0].role, "developer");
    assert.equal(sent.body.reasoning_effort, "high");
    assert.equal("temperature" in sent.body, false);
  }
});

Deno.test("openai: with no options the body is as before: no temperature, no reasoning_effort", async () => {
  await using server = fakeProvider([openAiReply("done")]);
  const model = openAiModel({ model: "m", baseUrl: `${server.url}/v1`, apiKey: KEY }, http());
  await model.complete(base, { signal: signal() });
  const [sent] = server.received;
  assert.deepEqual(Object.keys(sent.body).sort(), ["max_completion_tokens", "messages", "model"]);
});

Deno.test("anthropic: temperature, the output budget and a beta header reach the wire", async () => {
  await using server = fakeProvider([anthropicReply("done")]);
  const headers = parseHeaders(["anthropic-beta: some-beta-2025-01-01"]);
  const model = anthropicModel(
    { model: "claude-test", baseUrl: server.url, apiKey: KEY, headers },
    http(),
  );
  await model.complete(
    withOptions({ temperature: 0.7, maxOutputTokens: 555, headers }),
    { signal: signal() },
  );
  const [sent] = server.received;
  assert.equal(sent.body.temperature, 0.7);
  assert.equal(sent.body.max_tokens, 555);
  assert.equal(sent.headers.get("anthropic-beta"), "some-beta-2025-01-01");
  assert.equal(sent.headers.get("x-api-key"), KEY);
  assert.equal(sent.headers.get("anthropic-version"), "2023-06-01");
});

Deno.test("--retries N: a provider that keeps failing sees N + 1 attempts", async () => {
  for (const [provider, retries] of [["openai", 0], ["anthropic", 2]] as const) {
    await using server = fakeProvider(
      [],
      () => ({ status: 500, body: { error: { message: "down" } } }),
    );
    const model = provider === "openai"
      ? openAiModel({ model: "m", baseUrl: `${server.url}/v1`, apiKey: KEY }, http(retries))
      : anthropicModel({ model: "m", baseUrl: server.url, apiKey: KEY }, http(retries));
    await assert.rejects(
      model.complete(base, { signal: signal() }),
      new RegExp(`unavailable after ${retries + 1} attempts?:`),
    );
    assert.equal(server.received.length, retries + 1, provider);
  }
});

Deno.test("a secret header's value is redacted from what the record keeps and from an echoing error", async () => {
  const headers = parseHeaders([`x-api-key: ${GATEWAY_TOKEN}`, "x-team: qa"]);
  assert.deepEqual(requestParameters({ headers })?.headers, {
    "x-api-key": "[redacted]",
    "x-team": "qa",
  });
  await using server = fakeProvider([{
    status: 400,
    body: { error: { message: `bad header x-api-key: ${GATEWAY_TOKEN}` } },
  }]);
  const model = openAiModel(
    { model: "m", baseUrl: `${server.url}/v1`, apiKey: "", headers },
    http(),
  );
  await assert.rejects(model.complete(base, { signal: signal() }), (error: Error) => {
    assert.equal(error.message.includes(GATEWAY_TOKEN), false, error.message);
    assert.match(error.message, /\[redacted\]/);
    return true;
  });
});

Deno.test("each option changes the fingerprint; a request without options keeps its old fingerprint", () => {
  const prints = [
    withOptions({}),
    withOptions({ temperature: 0.2 }),
    withOptions({ temperature: 0.3 }),
    withOptions({ maxOutputTokens: 301 }),
    withOptions({ reasoningEffort: "low" }),
    withOptions({ reasoningEffort: "high" }),
    withOptions({ headers: { "anthropic-beta": "a" } }),
    withOptions({ headers: { "anthropic-beta": "b" } }),
  ].map(fingerprint);
  assert.equal(new Set(prints).size, prints.length);
  // --retries changes no request; a secret header's value is not part of it (only its name).
  assert.equal(fingerprint(withOptions({ retries: 1 })), prints[0]);
  assert.equal(
    fingerprint(withOptions({ headers: { authorization: "Bearer one-1234567" } })),
    fingerprint(withOptions({ headers: { authorization: "Bearer two-7654321" } })),
  );
  // The preimage of a request without parameters is the one records made before they existed.
  const messageHash = sha256Hex(canonicalJson(base.messages[0]));
  const old = sha256Hex(
    `verdict.request/1\n${sha256Hex(canonicalJson(base.system))}\n${
      sha256Hex(canonicalJson(base.tools))
    }\n${base.maxOutputTokens}\n${sha256Hex(messageHash)}`,
  );
  assert.equal(prints[0], old);
});

Deno.test("options a model does not take are refused before any call, naming the flag and the fix", () => {
  const cases: [Parameters<typeof checkProviderOptions>, RegExp][] = [
    [
      ["anthropic", "claude-sonnet-4-5", { temperature: 1.5 }],
      /--temperature 1.5: .* 0 to 1; pass/,
    ],
    [["openai", "o3-mini", { temperature: 0.5 }], /--temperature 0.5: .*reasoning model.*drop/],
    [["openai", "gpt-4o", { reasoningEffort: "low" }], /--reasoning-effort low: .*not a reasoning/],
    [["anthropic", "claude-sonnet-4-5", { reasoningEffort: "low" }], /--reasoning-effort.*drop/],
  ];
  for (const [args, message] of cases) {
    assert.throws(() => checkProviderOptions(...args), (error: Error) => {
      assert.equal((error as unknown as { exitCode: number }).exitCode, 2);
      assert.match(error.message, message);
      return true;
    });
  }
  // A name the rule does not know (a local model, a deployment's name) is sent what was asked.
  checkProviderOptions("openai", "qwen3:8b", { temperature: 1.9, reasoningEffort: "medium" });
});

Deno.test("--header values are NAME:VALUE, once per name, with a value HTTP can carry", () => {
  for (
    const [texts, message] of [
      [["no-colon"], /not NAME:VALUE/],
      [["bad name: x"], /not NAME:VALUE/],
      [["a: 1", "A: 2"], /--header a is given twice/],
      [["x-a: one\ntwo"], /--header x-a: the value holds a line break/],
      [
        ["x-team: 日本"],
        /--header x-team: the value holds "日", which an HTTP header cannot carry/,
      ],
      [["x-bell: \u0007"], /--header x-bell: the value holds "\\u0007"/],
    ] as const
  ) {
    assert.throws(() => parseHeaders(texts), message);
  }
});
