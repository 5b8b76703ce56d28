import assert from "node:assert/strict";
import type { GatewayAnswer, WireFormat } from "../../src/gateway/gateway.ts";
import { WIRE_CODECS } from "../../src/gateway/handler.ts";
import type { ModelResponse } from "../../src/model/model.ts";
import { answeredTurn } from "../../src/report/_answered_turn.ts";
import { gatewayCall } from "../gateway/_calls.ts";

const said: ModelResponse = {
  content: "Reading two files, ".repeat(8),
  toolCalls: [
    { id: "c1", name: "exec_command", arguments: JSON.stringify({ cmd: "cat a.py ".repeat(20) }) },
    { id: "c2", name: "Bash", arguments: '{"command":"ls"}' },
  ],
  finish: "tool_calls",
  usage: { input: 5, cachedInput: 0, output: 5 },
};

/** What answeredTurn reads back from the gateway's own answer in a format, streamed or not. */
function readBack(
  format: WireFormat,
  stream: boolean,
  answer?: (a: GatewayAnswer) => GatewayAnswer,
) {
  const call = gatewayCall(1, format, { model: "m", stream }, stream);
  const rendered = WIRE_CODECS[format].render(call, said);
  const recorded = answer ? answer(rendered) : rendered;
  return answeredTurn(call, {
    number: call.number,
    status: recorded.status,
    content_type: recorded.contentType,
    body: recorded.body,
    usage: recorded.usage,
    cost_usd: null,
  });
}

Deno.test("the text and tool calls of every format's answer, JSON or streamed, are read back", () => {
  for (const format of ["chat_completions", "responses", "messages"] as const) {
    for (const stream of [false, true]) {
      const turn = readBack(format, stream);
      assert.equal(turn?.content, said.content, `${format}, stream ${stream}`);
      assert.deepEqual(turn?.toolCalls, said.toolCalls, `${format}, stream ${stream}`);
    }
  }
});

Deno.test("an error answer or a body cut short reads as no turn, never a throw", () => {
  const error = (a: GatewayAnswer) => ({ ...a, status: 429 });
  assert.equal(readBack("messages", true, error), undefined);
  const cut = (a: GatewayAnswer) => ({ ...a, body: a.body.slice(0, a.body.length / 2) });
  assert.equal(readBack("messages", false, cut), undefined, "half a JSON body");
  for (const format of ["chat_completions", "responses", "messages"] as const) {
    const turn = readBack(format, true, cut);
    assert(turn !== undefined && said.content.startsWith(turn.content), `${format}: what came`);
  }
});
