import assert from "node:assert/strict";
import { LogicalClock } from "../../src/core/clock.ts";
import { SplitMix64 } from "../../src/core/rng.ts";
import { DEFAULT_RETRY } from "../../src/model/_http.ts";
import { anthropicModel } from "../../src/model/anthropic.ts";
import type { ModelRequest, ModelResponse } from "../../src/model/model.ts";
import { openAiModel } from "../../src/model/openai.ts";
import { redactResponse, redactText, urlCredentials } from "../../src/model/redaction.ts";
import { anthropicReply, fakeProvider, openAiReply } from "./_fake_provider.ts";

const KEY = "sk-redact-0123456789abcdef";
const KEY_BASE64 = btoa(KEY).replace(/=+$/, "");
const request: ModelRequest = {
  system: "s",
  messages: [{ role: "user", content: "hi" }],
  tools: [],
  maxOutputTokens: 100,
};
const http = () => ({
  clock: new LogicalClock(),
  rng: new SplitMix64(1),
  retry: DEFAULT_RETRY,
  secrets: [],
});

function answer(content: string, args: string): ModelResponse {
  return {
    content,
    toolCalls: [{ id: "c1", name: "shell", arguments: args }],
    finish: "tool_calls",
    usage: { input: 1, cachedInput: 0, output: 1 },
  };
}

Deno.test("a secret is redacted as written, in base64, and behind JSON escapes in tool arguments", () => {
  const escapedKey = `\\u0073${KEY.slice(1)}`;
  const redacted = redactResponse(
    answer(
      `key ${KEY}, header ${KEY_BASE64}==`,
      `{"command":"echo ${escapedKey}","note":"${KEY}"}`,
    ),
    [KEY],
  );
  assert.equal(redacted.content, "key [redacted], header [redacted]==");
  assert.deepEqual(JSON.parse(redacted.toolCalls[0].arguments), {
    command: "echo [redacted]",
    note: "[redacted]",
  });
  assert.deepEqual(redacted.usage, { input: 1, cachedInput: 0, output: 1 });
});

Deno.test("arguments without a secret are kept byte for byte, invalid JSON included", () => {
  const spaced = '{ "command" : "ls" }';
  assert.equal(redactResponse(answer("x", spaced), [KEY]).toolCalls[0].arguments, spaced);
  assert.equal(
    redactResponse(answer("x", `{"command": "${KEY}`), [KEY]).toolCalls[0].arguments,
    '{"command": "[redacted]',
  );
});

Deno.test("placeholders shorter than 8 characters are not secrets: the answer stays intact", () => {
  const response = answer("fix the index and exit", '{"command":"make EMPTY=x"}');
  assert.deepEqual(redactResponse(response, ["x", "EMPTY", ""]), response);
  assert.equal(redactText("x marks", ["x"]), "x marks");
});

Deno.test("a base URL's credentials are secrets: the password, user:password, and a lone token", () => {
  assert.deepEqual(
    urlCredentials("https://me:pa%24%24word@gw.example/v1").sort(),
    ["me:pa$$word", "me:pa%24%24word", "pa$$word", "pa%24%24word"],
  );
  assert.deepEqual(urlCredentials("https://tok-0123456789@gw.example/").sort(), [
    "tok-0123456789",
    "tok-0123456789:",
  ]);
  assert.deepEqual(urlCredentials("https://gw.example/v1"), []);
});

Deno.test("both clients return an echoed key redacted", async () => {
  await using openai = fakeProvider([
    openAiReply(`you sent ${KEY}`, [{ id: "c", name: "shell", arguments: `{"k":"${KEY}"}` }]),
  ]);
  const fromOpenAi = await openAiModel(
    { model: "m", baseUrl: `${openai.url}/v1`, apiKey: KEY },
    http(),
  ).complete(request, { signal: AbortSignal.timeout(10_000) });
  assert.equal(fromOpenAi.content, "you sent [redacted]");
  assert.equal(fromOpenAi.toolCalls[0].arguments, '{"k":"[redacted]"}');

  await using anthropic = fakeProvider([
    anthropicReply(`you sent ${KEY_BASE64}`, [{ id: "t", name: "shell", input: { k: KEY } }]),
  ]);
  const fromAnthropic = await anthropicModel(
    { model: "m", baseUrl: anthropic.url, apiKey: KEY },
    http(),
  ).complete(request, { signal: AbortSignal.timeout(10_000) });
  assert.equal(fromAnthropic.content, "you sent [redacted]");
  assert.equal(fromAnthropic.toolCalls[0].arguments, '{"k":"[redacted]"}');
});
