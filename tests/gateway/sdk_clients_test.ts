/**
 * The official `openai` and `@anthropic-ai/sdk` clients hold a tool-calling conversation with the
 * gateway in all three wire formats, streaming and not: the model asks for a tool, the client
 * sends the result back, the model answers; tool arguments, text and usage arrive intact.
 */
import assert from "node:assert/strict";
import OpenAI from "openai";
import Anthropic from "@anthropic-ai/sdk";
import {
  COMMAND,
  KEY,
  serveTestGateway,
  SHELL_PARAMETERS,
  type TestGateway,
} from "./_gateway_server.ts";

const SYSTEM = "You are a careful agent.";
const TASK = "Count the characters.";
const RESULT = "44";
const ANSWER = `The command printed ${RESULT} (tool shell).`;

function openAi(gateway: TestGateway): OpenAI {
  return new OpenAI({ apiKey: KEY, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
}

function anthropic(gateway: TestGateway): Anthropic {
  return new Anthropic({ apiKey: KEY, baseURL: gateway.url, maxRetries: 0 });
}

function assertTurns(gateway: TestGateway, format: string, stream: boolean) {
  assert.deepEqual(gateway.exchanges.map(({ call }) => [call.number, call.format, call.stream]), [
    [1, format, stream],
    [2, format, stream],
  ]);
  const [first, second] = gateway.model.requests;
  assert.equal(first.system, SYSTEM);
  assert.deepEqual(first.messages, [{ role: "user", content: TASK }]);
  assert.deepEqual(first.tools.map((tool) => tool.name), ["shell"]);
  assert.deepEqual(second.messages.at(-1), {
    role: "tool",
    toolCallId: "call_1",
    name: "shell",
    content: RESULT,
    isError: false,
  });
  for (const { answer } of gateway.exchanges) {
    assert.deepEqual(answer.usage, {
      input: 120,
      cachedInput: 30,
      cacheWriteInput: 10,
      output: 17,
    });
  }
}

for (const stream of [false, true]) {
  Deno.test(`chat completions: a tool-calling conversation completes (stream: ${stream})`, async () => {
    await using gateway = serveTestGateway();
    const client = openAi(gateway);
    const tools = [{
      type: "function" as const,
      function: { name: "shell", description: "Runs a command.", parameters: SHELL_PARAMETERS },
    }];
    const messages: OpenAI.ChatCompletionMessageParam[] = [
      { role: "system", content: SYSTEM },
      { role: "user", content: TASK },
    ];
    const ask = async () =>
      stream
        ? await client.chat.completions.stream({
          model: "gpt-test",
          messages,
          tools,
          stream_options: { include_usage: true },
        }).finalChatCompletion()
        : await client.chat.completions.create({ model: "gpt-test", messages, tools });
    const first = await ask();
    const choice = first.choices[0];
    assert.equal(choice.finish_reason, "tool_calls");
    assert.equal(choice.message.content, "Let me count.");
    const call = choice.message.tool_calls![0];
    assert(call.type === "function");
    assert.equal(call.id, "call_1");
    assert.equal(call.function.name, "shell");
    assert.deepEqual(JSON.parse(call.function.arguments), { command: COMMAND });
    assert.equal(first.usage?.prompt_tokens, 160);
    assert.equal(first.usage?.prompt_tokens_details?.cached_tokens, 30);
    assert.equal(first.usage?.completion_tokens, 17);
    messages.push(choice.message, { role: "tool", tool_call_id: call.id, content: RESULT });
    const second = await ask();
    assert.equal(second.choices[0].finish_reason, "stop");
    assert.equal(second.choices[0].message.content, ANSWER);
    assertTurns(gateway, "chat_completions", stream);
  });

  Deno.test(`responses: a tool-calling conversation completes (stream: ${stream})`, async () => {
    await using gateway = serveTestGateway();
    const client = openAi(gateway);
    const tools = [{
      type: "function" as const,
      name: "shell",
      description: "Runs a command.",
      parameters: SHELL_PARAMETERS,
      strict: false,
    }];
    const input: OpenAI.Responses.ResponseInputItem[] = [
      { role: "developer", content: SYSTEM },
      { role: "user", content: [{ type: "input_text", text: TASK }] },
    ];
    const ask = async () =>
      stream
        ? await client.responses.stream({ model: "gpt-test", input, tools }).finalResponse()
        : await client.responses.create({ model: "gpt-test", input, tools });
    const first = await ask();
    assert.equal(first.status, "completed");
    assert.equal(first.output_text, "Let me count.");
    const call = first.output.find((item) => item.type === "function_call");
    assert(call?.type === "function_call");
    assert.equal(call.call_id, "call_1");
    assert.equal(call.name, "shell");
    assert.deepEqual(JSON.parse(call.arguments), { command: COMMAND });
    assert.equal(first.usage?.input_tokens, 160);
    assert.equal(first.usage?.input_tokens_details.cached_tokens, 30);
    assert.equal(first.usage?.output_tokens, 17);
    input.push(
      ...first.output.map((item) =>
        item.type === "function_call"
          ? {
            type: "function_call" as const,
            call_id: item.call_id,
            name: item.name,
            arguments: item.arguments,
          }
          : { role: "assistant" as const, content: first.output_text }
      ),
      { type: "function_call_output", call_id: call.call_id, output: RESULT },
    );
    const second = await ask();
    assert.equal(second.output_text, ANSWER);
    assert.equal(second.usage?.total_tokens, 177);
    assertTurns(gateway, "responses", stream);
  });

  Deno.test(`messages: a tool-calling conversation completes (stream: ${stream})`, async () => {
    await using gateway = serveTestGateway();
    const client = anthropic(gateway);
    const tools = [{
      name: "shell",
      description: "Runs a command.",
      input_schema: SHELL_PARAMETERS,
    }];
    const messages: Anthropic.MessageParam[] = [{ role: "user", content: TASK }];
    const params = () => ({
      model: "claude-test",
      max_tokens: 1024,
      system: [{ type: "text" as const, text: SYSTEM }],
      messages,
      tools,
    });
    const ask = async () =>
      stream
        ? await client.messages.stream(params()).finalMessage()
        : await client.messages.create(params());
    const first = await ask();
    assert.equal(first.stop_reason, "tool_use");
    assert.deepEqual(first.content[0], { type: "text", text: "Let me count." });
    const call = first.content[1];
    assert(call.type === "tool_use");
    assert.equal(call.id, "call_1");
    assert.equal(call.name, "shell");
    assert.deepEqual(call.input, { command: COMMAND });
    assert.equal(first.usage.input_tokens, 120);
    assert.equal(first.usage.cache_read_input_tokens, 30);
    assert.equal(first.usage.cache_creation_input_tokens, 10);
    assert.equal(first.usage.output_tokens, 17);
    messages.push(
      { role: "assistant", content: first.content },
      { role: "user", content: [{ type: "tool_result", tool_use_id: call.id, content: RESULT }] },
    );
    const second = await ask();
    assert.equal(second.stop_reason, "end_turn");
    assert.deepEqual(second.content, [{ type: "text", text: ANSWER }]);
    assertTurns(gateway, "messages", stream);
  });
}

Deno.test("messages: the beta endpoint (`/v1/messages?beta=true`) is served too", async () => {
  await using gateway = serveTestGateway();
  const client = anthropic(gateway);
  const message = await client.beta.messages.stream({
    model: "claude-test",
    max_tokens: 1024,
    messages: [{ role: "user", content: TASK }],
    tools: [{ name: "shell", description: "Runs a command.", input_schema: SHELL_PARAMETERS }],
  }).finalMessage();
  const call = message.content.find((block) => block.type === "tool_use");
  assert(call?.type === "tool_use");
  assert.deepEqual(call.input, { command: COMMAND });
  assert.equal(gateway.exchanges[0].call.format, "messages");
});
