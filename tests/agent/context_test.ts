import assert from "node:assert/strict";
import { fitContext, SUMMARY_PREFIX } from "../../src/agent/context.ts";
import { toAnthropicRequest } from "../../src/model/anthropic.ts";
import type { Message, ModelRequest } from "../../src/model/model.ts";
import { toOpenAiRequest } from "../../src/model/openai.ts";
import { heuristicCounter } from "../../src/model/tokens.ts";
import { calls, echoTool, runLoop, testTask } from "./_loop_harness.ts";

/** Every tool call answered by the very next tool messages, and no result without its call. */
function assertOpenAiValid(body: Record<string, unknown>): void {
  const messages = body.messages as {
    role: string;
    tool_calls?: { id: string }[];
    tool_call_id?: string;
  }[];
  assert.equal(messages[0].role, "system");
  assert.equal(messages[1].role, "user", "the task stays first");
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i];
    if (message.role === "tool") assert.fail(`tool message ${i} without its call`);
    if (message.role !== "assistant" || !message.tool_calls) continue;
    const ids = message.tool_calls.map((call) => call.id);
    const answers = messages.slice(i + 1, i + 1 + ids.length);
    assert.deepEqual(answers.map((answer) => answer.tool_call_id), ids, `results of message ${i}`);
    i += ids.length;
  }
}

function assertAnthropicValid(body: Record<string, unknown>): void {
  const messages = body.messages as {
    role: string;
    content: { type: string; id?: string; tool_use_id?: string }[];
  }[];
  assert.equal(messages[0].role, "user");
  for (let i = 0; i < messages.length; i++) {
    if (i > 0) assert.notEqual(messages[i].role, messages[i - 1].role, "turns alternate");
    const uses = messages[i].content.filter((block) => block.type === "tool_use").map((block) =>
      block.id
    );
    const results = (messages[i + 1]?.content ?? []).filter((block) => block.type === "tool_result")
      .map((block) => block.tool_use_id);
    if (messages[i].role === "assistant") {
      assert.deepEqual(results, uses, `tool_result blocks answer turn ${i}`);
    }
    if (messages[i].role === "user" && i > 0) {
      const previous = messages[i - 1].content.filter((block) => block.type === "tool_use").map((
        block,
      ) => block.id);
      for (
        const id of messages[i].content.filter((block) => block.type === "tool_result").map((
          block,
        ) => block.tool_use_id)
      ) {
        assert.ok(previous.includes(id), `tool_result ${id} has its tool_use`);
      }
    }
  }
}

Deno.test("every request of a long, compacting run is valid for both providers", async () => {
  for (const strategy of ["truncate", "summarize"] as const) {
    const task = testTask({
      limits: { max_steps: 80, timeout_s: 600, max_total_tokens: 10_000_000, max_cost_usd: 100 },
      context: { max_tokens: 3000, reserve_output_tokens: 500, strategy },
    });
    const { outcome, requests, events } = await runLoop(
      (_request, call) =>
        call < 60
          ? calls(
            ...Array.from(
              { length: 1 + (call % 3) },
              () => ["echo", { size: 200 + (call % 5) * 300 }] as [string, Record<string, unknown>],
            ),
          )
          : calls(["finish", { summary: "done" }]),
      { task, tools: undefined },
    );
    assert.equal(outcome.stopReason, "completed");
    assert.ok(outcome.counters.compactions > 10, `${outcome.counters.compactions} compactions`);
    for (const request of requests) {
      assert.ok(countRequest(request) <= 3000, "every request fits the budget");
      assertOpenAiValid(toOpenAiRequest("m", request));
      assertAnthropicValid(toAnthropicRequest("m", request));
      assert.equal(request.messages[0].content, "Do the thing.");
    }
    const compactions = events.filter((event) => event.kind === "context.compacted");
    assert.equal(compactions.length, outcome.counters.compactions);
    assert.ok(
      compactions.every((event) =>
        (event.payload.removedMessages as number) > 0 ||
        (event.payload.shortenedResults as number) > 0
      ),
    );
    if (strategy === "summarize") {
      const last = requests.at(-1)!;
      assert.ok(
        last.messages[1].content.startsWith(SUMMARY_PREFIX),
        "the summary follows the task",
      );
      assert.match(last.messages[1].content, /- echo : ok/);
    }
  }
});

function countRequest(request: ModelRequest): number {
  return heuristicCounter.count(request.system) + 4 +
    request.tools.reduce((sum, tool) => sum + 4 + heuristicCounter.count(JSON.stringify(tool)), 0) +
    request.messages.reduce((sum, message) =>
      sum + 4 + heuristicCounter.count(message.content) +
      (message.role === "assistant"
        ? message.toolCalls.reduce(
          (s, c) => s + 4 + heuristicCounter.count(c.name) + heuristicCounter.count(c.arguments),
          0,
        )
        : 0), 0) +
    request.maxOutputTokens;
}

Deno.test("compaction removes whole turns, oldest first, and records what it removed", () => {
  const turn = (id: string, size: number): Message[] => [
    { role: "assistant", content: "", toolCalls: [{ id, name: "echo", arguments: "{}" }] },
    { role: "tool", toolCallId: id, name: "echo", content: "y".repeat(size), isError: false },
  ];
  const messages: Message[] = [
    { role: "user", content: "task" },
    ...turn("a", 2000),
    ...turn("b", 3400),
    ...turn("c", 400),
  ];
  const outcome = fitContext("sys", messages, [echoTool.schema], {
    maxTokens: 1000,
    reserveOutputTokens: 100,
    strategy: "truncate",
  }, heuristicCounter);
  assert.equal(outcome.kind, "fits");
  if (outcome.kind !== "fits") return;
  assert.deepEqual(
    outcome.messages.map((message) => message.role === "tool" ? message.toolCallId : message.role),
    ["user", "assistant", "c"],
  );
  assert.equal(outcome.compaction?.removedMessages, 4);
  assert.ok(outcome.compaction!.tokensAfter <= 1000 && outcome.compaction!.tokensBefore > 1000);
});

Deno.test("an oversized newest result is shortened, keeping its call", () => {
  const messages: Message[] = [
    { role: "user", content: "task" },
    { role: "assistant", content: "", toolCalls: [{ id: "a", name: "echo", arguments: "{}" }] },
    { role: "tool", toolCallId: "a", name: "echo", content: "z".repeat(20_000), isError: false },
  ];
  const outcome = fitContext("sys", messages, [], {
    maxTokens: 2000,
    reserveOutputTokens: 200,
    strategy: "truncate",
  }, heuristicCounter);
  assert.ok(outcome.kind === "fits");
  if (outcome.kind !== "fits") return;
  assert.equal(outcome.messages.length, 3);
  assert.equal(outcome.compaction?.shortenedResults, 1);
  assert.match((outcome.messages[2] as { content: string }).content, /characters omitted/);
});

Deno.test("a fixed prefix larger than the budget stops the run with a clear reason", async () => {
  const task = testTask({
    context: { max_tokens: 300, reserve_output_tokens: 200, strategy: "truncate" },
  });
  const { outcome, requests } = await runLoop(() => calls(["finish", {}]), { task });
  assert.equal(outcome.stopReason, "budget");
  assert.match(
    outcome.detail!,
    /the system prompt, the task and the tool schemas need \d+ tokens with the reserved output, more than context\.max_tokens 300/,
  );
  assert.equal(requests.length, 0, "no call was made");
});
