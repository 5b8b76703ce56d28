/**
 * A gateway served on loopback for tests, answered by a small deterministic model: asked with no
 * tool result in the conversation, it calls the offered `shell` tool; given the result, it
 * answers with it. Every exchange is kept.
 *
 * @module
 */
import type { Model, ModelRequest } from "../../src/model/model.ts";
import type { GatewayAnswer, GatewayCall } from "../../src/gateway/gateway.ts";
import { type ExchangeHook, gatewayHandler } from "../../src/gateway/handler.ts";
import { modelBackend } from "../../src/gateway/model_backend.ts";

/** The trial's dummy key in these tests. */
export const KEY = "verdict-dummy-key-for-tests";

/** The command the test model asks to run: long enough to stream in several deltas. */
export const COMMAND =
  "printf 'the quick brown fox jumps over the lazy dog %s\\n' \"$(pwd)\" | wc -c";

/** The usage the test model reports: cached and cache-write input included. */
export const USAGE = { input: 120, cachedInput: 30, cacheWriteInput: 10, output: 17 };

/** The requests the test model was asked, in order. */
export interface ToolModel extends Model {
  /** What it was asked. */
  readonly requests: ModelRequest[];
}

/** The deterministic tool-calling model. */
export function toolModel(): ToolModel {
  const requests: ModelRequest[] = [];
  return {
    spec: "test:tool",
    remote: false,
    requests,
    complete(request) {
      requests.push(request);
      const result = request.messages.findLast((message) => message.role === "tool");
      if (result === undefined) {
        const shell = request.tools.find((tool) => tool.name === "shell");
        if (shell === undefined) throw new Error("the test model needs a shell tool");
        return Promise.resolve({
          content: "Let me count.",
          toolCalls: [{
            id: "call_1",
            name: "shell",
            arguments: JSON.stringify({ command: COMMAND }),
          }],
          finish: "tool_calls",
          usage: USAGE,
        });
      }
      return Promise.resolve({
        content: `The command printed ${result.content.trim()} (tool ${result.name}).`,
        toolCalls: [],
        finish: "stop",
        usage: USAGE,
      });
    },
  };
}

/** A served gateway. */
export interface TestGateway extends AsyncDisposable {
  /** Its root URL, such as `http://127.0.0.1:PORT`. */
  url: string;
  /** The exchanges the hook heard, in order. */
  exchanges: { call: GatewayCall; answer: GatewayAnswer }[];
  /** The model behind it. */
  model: ToolModel;
}

/** Serves a gateway on an ephemeral loopback port. */
export function serveTestGateway(onExchange?: ExchangeHook): TestGateway {
  const model = toolModel();
  const exchanges: TestGateway["exchanges"] = [];
  const handler = gatewayHandler({
    key: KEY,
    backend: modelBackend(model),
    onExchange(call, answer, failure) {
      exchanges.push({ call, answer });
      return onExchange?.(call, answer, failure);
    },
  });
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    (request) => handler(request),
  );
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    exchanges,
    model,
    [Symbol.asyncDispose]: () => server.shutdown(),
  };
}

/** The tool the clients offer, as a JSON schema. */
export const SHELL_PARAMETERS = {
  type: "object" as const,
  properties: { command: { type: "string", description: "The command." } },
  required: ["command"],
};
