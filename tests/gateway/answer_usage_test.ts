import assert from "node:assert/strict";
import { answerUsage } from "../../src/gateway/answer_usage.ts";

const JSON_TYPE = "application/json";
const SSE = "text/event-stream; charset=utf-8";

function sse(events: Array<{ event?: string; data: unknown }>, done = false): string {
  return events.map(({ event, data }) =>
    `${event ? `event: ${event}\n` : ""}data: ${JSON.stringify(data)}\n\n`
  ).join("") + (done ? "data: [DONE]\n\n" : "");
}

Deno.test("chat completions: prompt tokens less the cached ones, completion tokens out", () => {
  const body = JSON.stringify({
    choices: [{ message: { role: "assistant", content: "hi" } }],
    usage: {
      prompt_tokens: 120,
      completion_tokens: 7,
      total_tokens: 127,
      prompt_tokens_details: { cached_tokens: 100 },
    },
  });
  assert.deepEqual(answerUsage("chat_completions", JSON_TYPE, body), {
    input: 20,
    cachedInput: 100,
    output: 7,
  });
});

Deno.test("chat completions stream: the final chunk's usage (include_usage), [DONE] skipped", () => {
  const body = sse([
    { data: { choices: [{ delta: { content: "h" } }], usage: null } },
    { data: { choices: [{ delta: {}, finish_reason: "stop" }], usage: null } },
    { data: { choices: [], usage: { prompt_tokens: 50, completion_tokens: 3 } } },
  ], true);
  assert.deepEqual(answerUsage("chat_completions", SSE, body), {
    input: 50,
    cachedInput: 0,
    output: 3,
  });
});

Deno.test("chat completions stream without a usage chunk: null, not zero", () => {
  const body = sse([{ data: { choices: [{ delta: { content: "h" } }] } }], true);
  assert.equal(answerUsage("chat_completions", SSE, body), null);
});

Deno.test("responses: the response's usage, JSON and from response.completed in a stream", () => {
  const usage = {
    input_tokens: 300,
    input_tokens_details: { cached_tokens: 200 },
    output_tokens: 40,
    output_tokens_details: { reasoning_tokens: 10 },
    total_tokens: 340,
  };
  const expected = { input: 100, cachedInput: 200, output: 40 };
  assert.deepEqual(
    answerUsage("responses", JSON_TYPE, JSON.stringify({ object: "response", usage })),
    expected,
  );
  const stream = sse([
    { event: "response.created", data: { type: "response.created", response: { usage: null } } },
    { event: "response.output_item.done", data: { type: "response.output_item.done" } },
    { event: "response.completed", data: { type: "response.completed", response: { usage } } },
  ]);
  assert.deepEqual(answerUsage("responses", SSE, stream), expected);
});

Deno.test("messages: cache reads and writes apart from input_tokens, as anthropic.ts counts", () => {
  const body = JSON.stringify({
    content: [],
    usage: {
      input_tokens: 12,
      output_tokens: 30,
      cache_read_input_tokens: 1000,
      cache_creation_input_tokens: 500,
    },
  });
  assert.deepEqual(answerUsage("messages", JSON_TYPE, body), {
    input: 12,
    cachedInput: 1000,
    cacheWriteInput: 500,
    output: 30,
  });
});

Deno.test("messages stream: message_start's usage, then message_delta's cumulative counts", () => {
  const body = sse([
    {
      event: "message_start",
      data: {
        type: "message_start",
        message: {
          usage: {
            input_tokens: 25,
            output_tokens: 1,
            cache_read_input_tokens: 40,
            cache_creation_input_tokens: null,
          },
        },
      },
    },
    { event: "content_block_start", data: { type: "content_block_start", index: 0 } },
    { event: "content_block_stop", data: { type: "content_block_stop", index: 0 } },
    {
      event: "message_delta",
      data: {
        type: "message_delta",
        delta: { stop_reason: "end_turn" },
        usage: { output_tokens: 15, input_tokens: null },
      },
    },
    { event: "message_stop", data: { type: "message_stop" } },
  ]).replaceAll("\n", "\r\n");
  assert.deepEqual(answerUsage("messages", SSE, body), {
    input: 25,
    cachedInput: 40,
    output: 15,
  });
});

Deno.test("an error body has no usage", () => {
  const body = JSON.stringify({ type: "error", error: { type: "overloaded_error", message: "x" } });
  assert.equal(answerUsage("messages", JSON_TYPE, body), null);
  assert.equal(answerUsage("responses", JSON_TYPE, "not json"), null);
});
