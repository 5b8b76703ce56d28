/**
 * An answer cut by the output budget, and a refusal, reach the official clients as the providers
 * send them, streaming and not: Chat Completions `finish_reason: "length"` and `message.refusal`;
 * Responses `status: "incomplete"` and a `refusal` part; Messages `stop_reason` `max_tokens` and
 * `refusal`.
 */
import assert from "node:assert/strict";
import OpenAI from "openai";
import Anthropic from "@anthropic-ai/sdk";
import { gatewayHandler } from "../../src/gateway/handler.ts";
import { modelBackend } from "../../src/gateway/model_backend.ts";
import type { ModelResponse } from "../../src/model/model.ts";
import { KEY } from "./_gateway_server.ts";

const USAGE = { input: 10, cachedInput: 0, output: 5 };

function serve(finish: ModelResponse["finish"], content: string) {
  const handler = gatewayHandler({
    key: KEY,
    backend: modelBackend({
      spec: "fixed",
      remote: false,
      complete: () => Promise.resolve({ content, toolCalls: [], finish, usage: USAGE }),
    }),
  });
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    (request) => handler(request),
  );
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    [Symbol.asyncDispose]: () => server.shutdown(),
  };
}

for (const stream of [false, true]) {
  Deno.test(`a cut answer and a refusal reach the OpenAI client (stream: ${stream})`, async () => {
    for (const finish of ["length", "refusal"] as const) {
      await using gateway = serve(finish, "partial text");
      const client = new OpenAI({ apiKey: KEY, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
      const messages = [{ role: "user" as const, content: "go" }];
      const chat = stream
        ? await client.chat.completions.stream({ model: "m", messages }).finalChatCompletion()
        : await client.chat.completions.create({ model: "m", messages });
      const choice = chat.choices[0];
      if (finish === "length") {
        assert.equal(choice.finish_reason, "length");
        assert.equal(choice.message.content, "partial text");
      } else assert.equal(choice.message.refusal, "partial text");
      const response = stream
        ? await client.responses.stream({ model: "m", input: "go" }).finalResponse()
        : await client.responses.create({ model: "m", input: "go" });
      const message = response.output[0];
      assert(message.type === "message");
      if (finish === "length") {
        assert.equal(response.status, "incomplete");
        assert.equal(response.incomplete_details?.reason, "max_output_tokens");
        assert.equal(response.output_text, "partial text");
      } else {
        const part = message.content[0];
        assert(part.type === "refusal");
        assert.equal(part.refusal, "partial text");
      }
    }
  });

  Deno.test(`a cut answer and a refusal reach the Anthropic client (stream: ${stream})`, async () => {
    for (const [finish, reason] of [["length", "max_tokens"], ["refusal", "refusal"]] as const) {
      await using gateway = serve(finish, "partial text");
      const client = new Anthropic({ apiKey: KEY, baseURL: gateway.url, maxRetries: 0 });
      const params = {
        model: "m",
        max_tokens: 5,
        messages: [{ role: "user" as const, content: "go" }],
      };
      const message = stream
        ? await client.messages.stream(params).finalMessage()
        : await client.messages.create(params);
      assert.equal(message.stop_reason, reason);
      assert.deepEqual(message.content, [{ type: "text", text: "partial text" }]);
      assert.equal(message.usage.output_tokens, 5);
    }
  });
}
