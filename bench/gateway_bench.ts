/**
 * The gateway's overhead per model call: a streaming Chat Completions call answered by an instant
 * model through the gateway (reading the request, checking the key, the budget's reservation, the
 * hook, rendering the stream), against a direct loopback call to a trivial `Deno.serve` that reads the same request
 * and returns the same stream as a fixed body. Both servers run in this process, are called with
 * `fetch` over 127.0.0.1, interleaved call by call; the figures are medians of wall time from
 * sending the request to the last byte of the answer. Run: `deno task bench`.
 *
 * @module
 */
import { chatCompletions } from "../src/gateway/chat_completions.ts";
import { budgetedBackend } from "../src/gateway/budget.ts";
import { gatewayHandler } from "../src/gateway/handler.ts";
import { GatewayLedger } from "../src/gateway/ledger.ts";
import { modelBackend } from "../src/gateway/model_backend.ts";
import type { ModelResponse } from "../src/model/model.ts";
import { median, percentile } from "./_measure.ts";

const CALLS = 1000;
const WARMUP = 100;
const KEY = "verdict-bench-key";

/** A mid-run agent request: a system prompt, two tools, 30 turns of history. */
const REQUEST = JSON.stringify({
  model: "scripted",
  stream: true,
  stream_options: { include_usage: true },
  messages: [
    { role: "system", content: "You are a coding agent. ".repeat(40) },
    { role: "user", content: "Fix the failing test in the repository." },
    ...Array.from({ length: 15 }, (_, index) => [
      {
        role: "assistant",
        content: null,
        tool_calls: [{
          id: `call_${index}`,
          type: "function",
          function: {
            name: "shell",
            arguments: JSON.stringify({ command: `cat src/file_${index}.py` }),
          },
        }],
      },
      {
        role: "tool",
        tool_call_id: `call_${index}`,
        content: "def f(x):\n    return x\n".repeat(20),
      },
    ]).flat(),
  ],
  tools: ["shell", "write_file"].map((name) => ({
    type: "function",
    function: {
      name,
      description: `The ${name} tool.`,
      parameters: { type: "object", properties: { command: { type: "string" } } },
    },
  })),
});

const ANSWER: ModelResponse = {
  content: "Let me run the tests.",
  toolCalls: [{
    id: "call_x",
    name: "shell",
    arguments: JSON.stringify({ command: "pytest -q tests/" }),
  }],
  finish: "tool_calls",
  usage: { input: 4000, cachedInput: 0, output: 20 },
};

// As a trial's gateway answers: behind its budget (one that every call fits), with a ledger.
const handler = gatewayHandler({
  key: KEY,
  backend: budgetedBackend(
    modelBackend({
      spec: "instant",
      remote: false,
      complete: () => Promise.resolve(ANSWER),
    }),
    new GatewayLedger(null),
    { maxTotalTokens: Number.MAX_SAFE_INTEGER, maxCostUsd: 0n, maxCalls: Number.MAX_SAFE_INTEGER },
  ),
  onExchange: () => {},
});
const gateway = Deno.serve(
  { hostname: "127.0.0.1", port: 0, onListen() {} },
  (request) => handler(request),
);
const fixedBody = chatCompletions.render({
  number: 1,
  format: "chat_completions",
  stream: true,
  streamUsage: true,
  model: "scripted",
  body: REQUEST,
  request: chatCompletions.read(JSON.parse(REQUEST)).request,
}, ANSWER).body;
const direct = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
  await request.text();
  return new Response(fixedBody, { headers: { "content-type": "text/event-stream" } });
});

async function timedCall(port: number): Promise<number> {
  const start = performance.now();
  const response = await fetch(`http://127.0.0.1:${port}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" },
    body: REQUEST,
  });
  const body = await response.text();
  const elapsed = performance.now() - start;
  if (response.status !== 200 || !body.endsWith("data: [DONE]\n\n")) {
    throw new Error(`port ${port} answered ${response.status}: ${body.slice(0, 200)}`);
  }
  return elapsed;
}

const viaGateway: number[] = [];
const viaDirect: number[] = [];
for (let index = 0; index < WARMUP + CALLS; index++) {
  // Alternate which goes first, so neither always runs on a warmer connection.
  const pair = index % 2 === 0
    ? [await timedCall(gateway.addr.port), await timedCall(direct.addr.port)]
    : [await timedCall(direct.addr.port), await timedCall(gateway.addr.port)].reverse();
  if (index < WARMUP) continue;
  viaGateway.push(pair[0]);
  viaDirect.push(pair[1]);
}
await gateway.shutdown();
await direct.shutdown();

const [gatewayMedian, directMedian] = [median(viaGateway), median(viaDirect)];
console.log(
  `gateway overhead: median ${gatewayMedian.toFixed(3)} ms per streaming Chat Completions call ` +
    `vs ${directMedian.toFixed(3)} ms direct loopback (ratio ${
      (gatewayMedian / directMedian).toFixed(2)
    }, +${(gatewayMedian - directMedian).toFixed(3)} ms; p90 ${
      percentile(viaGateway, 0.9).toFixed(3)
    } vs ${percentile(viaDirect, 0.9).toFixed(3)} ms; request ${
      (REQUEST.length / 1024).toFixed(0)
    } KiB, ${CALLS} calls each, interleaved; target <= 2 ms added)`,
);
