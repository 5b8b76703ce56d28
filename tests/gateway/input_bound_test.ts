import assert from "node:assert/strict";
import type { GatewayCall } from "../../src/gateway/gateway.ts";
import { answeredInput, CONTINUATION_MARGIN, inputBound } from "../../src/gateway/input_bound.ts";

function call(system: string, contents: string[]): GatewayCall {
  const request = {
    system,
    tools: [],
    maxOutputTokens: 10,
    messages: contents.map((content) => ({ role: "user" as const, content })),
  };
  return {
    number: 1,
    format: "messages",
    stream: false,
    model: "m",
    body: JSON.stringify(request),
    request,
  };
}

const FIRST = call("sys", ["x".repeat(8_000)]);
const ANSWERED = answeredInput(FIRST, { input: 1_500, cachedInput: 500, output: 10 });

Deno.test("a call that goes on the answered conversation is bounded by its real input and its growth", () => {
  const next = call("sys", ["x".repeat(8_000), "y".repeat(300)]);
  assert.equal(
    inputBound(next, ANSWERED),
    2_000 + (next.body.length - FIRST.body.length) + CONTINUATION_MARGIN,
  );
});

Deno.test("an edited earlier message, another system prompt or a first call: the body's bytes", () => {
  for (
    const other of [
      call("sys", ["z".repeat(8_000), "y"]), // the first message rewritten
      call("another system", ["x".repeat(8_000), "y"]),
      call("sys", []), // fewer messages than before
    ]
  ) {
    assert.equal(inputBound(other, ANSWERED), new TextEncoder().encode(other.body).byteLength);
  }
  assert.equal(inputBound(FIRST, null), FIRST.body.length);
});

Deno.test("the bound never passes the body's bytes", () => {
  const tiny = answeredInput(call("sys", []), { input: 50_000, cachedInput: 0, output: 1 });
  const next = call("sys", ["a"]);
  assert.equal(inputBound(next, tiny), next.body.length);
});
