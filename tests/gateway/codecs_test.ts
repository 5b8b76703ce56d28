/**
 * The codecs are the inverse of Verdict's own provider clients (`src/model/openai.ts`,
 * `src/model/anthropic.ts`): what a client writes, the gateway reads back unchanged, and what the
 * gateway renders, the client reads back unchanged (finish reasons and usage included).
 */
import assert from "node:assert/strict";
import type { ModelRequest, ModelResponse } from "../../src/model/model.ts";
import { fromOpenAiResponse, toOpenAiRequest } from "../../src/model/openai.ts";
import { fromAnthropicResponse, toAnthropicRequest } from "../../src/model/anthropic.ts";
import { chatCompletions } from "../../src/gateway/chat_completions.ts";
import { messages } from "../../src/gateway/messages.ts";
import { responses } from "../../src/gateway/responses.ts";
import type { GatewayCall } from "../../src/gateway/gateway.ts";

const REQUEST: ModelRequest = {
  system: "You are an agent.",
  messages: [
    { role: "user", content: "Fix the bug." },
    {
      role: "assistant",
      content: "Looking.",
      toolCalls: [{ id: "c1", name: "read_file", arguments: '{"path":"a.py"}' }],
    },
    { role: "tool", toolCallId: "c1", name: "read_file", content: "print(1)", isError: false },
    { role: "assistant", content: "Done.", toolCalls: [] },
    { role: "user", content: "Thanks." },
  ],
  tools: [{ name: "read_file", description: "Reads.", parameters: { type: "object" } }],
  maxOutputTokens: 321,
};

const USAGE = { input: 100, cachedInput: 20, cacheWriteInput: 5, output: 9 };

function answers(): ModelResponse[] {
  return [
    { content: "ok", toolCalls: [], finish: "stop", usage: USAGE },
    {
      content: "",
      toolCalls: [{ id: "c2", name: "read_file", arguments: '{"path":"b.py"}' }],
      finish: "tool_calls",
      usage: USAGE,
    },
    { content: "cut sh", toolCalls: [], finish: "length", usage: USAGE },
    { content: "I can't help with that.", toolCalls: [], finish: "refusal", usage: USAGE },
  ];
}

function call(format: GatewayCall["format"], stream: boolean, extra = {}): GatewayCall {
  return { number: 7, format, stream, model: "m", body: "{}", request: REQUEST, ...extra };
}

Deno.test("a request the Verdict clients write is read back unchanged", () => {
  assert.deepEqual(chatCompletions.read(toOpenAiRequest("m", REQUEST)).request, REQUEST);
  assert.deepEqual(messages.read(toAnthropicRequest("m", REQUEST)).request, REQUEST);
});

Deno.test("an answer the gateway renders is read back unchanged by the Verdict clients", () => {
  for (const answer of answers()) {
    const chat = chatCompletions.render(call("chat_completions", false), answer);
    // OpenAI has no cache-write count: those tokens come back as plain input.
    assert.deepEqual(fromOpenAiResponse(JSON.parse(chat.body)), {
      ...answer,
      usage: { input: 105, cachedInput: 20, output: 9 },
    });
    const message = messages.render(call("messages", false), answer);
    assert.deepEqual(fromAnthropicResponse(JSON.parse(message.body)), answer);
    assert.deepEqual(chat.usage, USAGE);
  }
});

Deno.test("chat completions: several system and developer messages and text parts are joined", () => {
  const read = chatCompletions.read({
    model: "m",
    messages: [
      { role: "system", content: "one" },
      { role: "developer", content: [{ type: "text", text: "two" }] },
      {
        role: "user",
        content: [{ type: "text", text: "a" }, { type: "image_url", image_url: {} }, {
          type: "text",
          text: "b",
        }],
      },
    ],
    tools: [{ type: "custom", custom: { name: "patch" } }],
  });
  assert.equal(read.request.system, "one\n\ntwo");
  assert.deepEqual(read.request.messages, [{ role: "user", content: "a\nb" }]);
  assert.deepEqual(read.request.tools, []);
  assert.equal(read.request.maxOutputTokens, 4096);
});

Deno.test("chat completions stream: a usage chunk only when include_usage was asked", () => {
  const answer = answers()[1];
  const plain = chatCompletions.render(call("chat_completions", true), answer).body;
  assert(plain.endsWith("data: [DONE]\n\n"));
  assert(!plain.includes('"usage"'));
  const counted = chatCompletions.render(
    call("chat_completions", true, { streamUsage: true }),
    answer,
  ).body;
  const chunks = counted.split("\n\n").filter((line) => line.startsWith("data: {"))
    .map((line) => JSON.parse(line.slice(6)));
  const last = chunks.at(-1);
  assert.deepEqual(last.choices, []);
  assert.equal(last.usage.prompt_tokens, 125);
  assert.equal(chunks.at(-2).choices[0].finish_reason, "tool_calls");
});

Deno.test("responses: items read, and an answer cut by the budget ends `response.incomplete`", () => {
  const read = responses.read({
    model: "m",
    instructions: "sys",
    input: [
      { type: "message", role: "developer", content: [{ type: "input_text", text: "dev" }] },
      { role: "user", content: "go" },
      { type: "reasoning", id: "rs_1", summary: [] },
      { type: "function_call", call_id: "c1", name: "shell", arguments: "{}" },
      { type: "function_call", call_id: "c2", name: "shell", arguments: "{}" },
      { type: "function_call_output", call_id: "c1", output: "one" },
      {
        type: "function_call_output",
        call_id: "c2",
        output: [{ type: "input_text", text: "two" }],
      },
    ],
    max_output_tokens: 50,
  });
  assert.equal(read.request.system, "sys\n\ndev");
  assert.deepEqual(read.request.messages.map((message) => message.role), [
    "user",
    "assistant",
    "tool",
    "tool",
  ]);
  assert.deepEqual(read.request.messages[3], {
    role: "tool",
    toolCallId: "c2",
    name: "shell",
    content: "two",
    isError: false,
  });
  const stream = responses.render(call("responses", true), answers()[2]).body;
  const events = [...stream.matchAll(/^event: (.+)$/gm)].map((match) => match[1]);
  assert.equal(events.at(-1), "response.incomplete");
  assert(events.includes("response.output_item.done"));
  const json = JSON.parse(responses.render(call("responses", false), answers()[2]).body);
  assert.deepEqual(json.incomplete_details, { reason: "max_output_tokens" });
});

Deno.test("messages: tool results with errors and list content are read", () => {
  const read = messages.read({
    model: "m",
    max_tokens: 10,
    messages: [
      { role: "user", content: "go" },
      {
        role: "assistant",
        content: [{ type: "thinking", thinking: "hm" }, {
          type: "tool_use",
          id: "t",
          name: "bash",
          input: { c: 1 },
        }],
      },
      {
        role: "user",
        content: [
          {
            type: "tool_result",
            tool_use_id: "t",
            content: [{ type: "text", text: "boom" }],
            is_error: true,
          },
          { type: "text", text: "and?" },
        ],
      },
    ],
    tools: [{ type: "web_search_20250305", name: "web_search" }],
  });
  assert.deepEqual(read.request.messages.slice(1), [
    {
      role: "assistant",
      content: "",
      toolCalls: [{ id: "t", name: "bash", arguments: '{"c":1}' }],
    },
    { role: "tool", toolCallId: "t", name: "bash", content: "boom", isError: true },
    { role: "user", content: "and?" },
  ]);
  assert.deepEqual(read.request.tools, []);
});

Deno.test("messages: a system message inside messages, as Claude Code sends, joins the system prompt", () => {
  const read = messages.read({
    model: "m",
    max_tokens: 10,
    system: [{ type: "text", text: "You are Claude Code.", cache_control: { type: "ephemeral" } }],
    messages: [
      { role: "system", content: [{ type: "text", text: "Today is Tuesday." }] },
      { role: "user", content: "go" },
      { role: "system", content: "Be brief." },
      { role: "assistant", content: "ok" },
    ],
  });
  assert.equal(read.request.system, "You are Claude Code.\n\nToday is Tuesday.\n\nBe brief.");
  assert.deepEqual(read.request.messages, [
    { role: "user", content: "go" },
    { role: "assistant", content: "ok", toolCalls: [] },
  ]);
  const alone = messages.read({
    model: "m",
    max_tokens: 10,
    messages: [{ role: "system", content: "only here" }, { role: "user", content: "go" }],
  });
  assert.equal(alone.request.system, "only here");
  assert.throws(
    () => messages.read({ model: "m", max_tokens: 10, messages: [{ role: "tool", content: "x" }] }),
    /messages\[0\]\.role.*must be user, assistant or system \(got "tool"\)/,
  );
});
