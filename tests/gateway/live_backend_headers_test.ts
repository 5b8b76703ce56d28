/**
 * `--header` through the gateway: an installed agent's requests reach the upstream with the
 * user's headers, an `anthropic-beta` joined with the agent's own betas, and a secret header the
 * upstream echoes is redacted before the agent sees it.
 */
import assert from "node:assert/strict";
import { LogicalClock } from "../../src/core/clock.ts";
import { SplitMix64 } from "../../src/core/rng.ts";
import { liveBackend } from "../../src/gateway/live_backend.ts";
import { DEFAULT_RETRY, type HttpDeps } from "../../src/model/_http.ts";
import { parseHeaders } from "../../src/model/provider_options.ts";
import { gatewayCall } from "./_calls.ts";

const TOKEN = "gw-token-1a2b3c4d5e6f";
const signal = () => AbortSignal.timeout(30_000);
const http: HttpDeps = {
  clock: new LogicalClock(),
  rng: new SplitMix64(3),
  retry: DEFAULT_RETRY,
  secrets: [],
};

/** A loopback upstream that echoes the headers it got in its answer. */
function echoingUpstream() {
  const received: Headers[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request) => {
    received.push(request.headers);
    return Response.json({
      content: [{ type: "text", text: `got ${request.headers.get("x-gateway-key")}` }],
      usage: { input_tokens: 1, output_tokens: 1 },
    });
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    received,
    [Symbol.asyncDispose]: () => server.shutdown(),
  };
}

Deno.test("live: --header reaches the upstream; anthropic-beta joins the agent's betas; a secret echo is redacted", async () => {
  await using server = echoingUpstream();
  const backend = liveBackend({
    provider: "anthropic",
    model: "claude-test",
    baseUrl: server.url,
    apiKey: "sk-ant-real-0123456789",
    headers: parseHeaders(["anthropic-beta: user-beta", `x-gateway-key: ${TOKEN}`]),
  }, http);
  const call = gatewayCall(1, "messages", { model: "claude-test", messages: [] });
  const answer = await backend.answer({ ...call, betas: "agent-beta" }, signal());
  const [headers] = server.received;
  assert.equal(headers.get("anthropic-beta"), "agent-beta,user-beta");
  assert.equal(headers.get("x-gateway-key"), TOKEN);
  assert.equal(answer.status, 200);
  assert.equal(answer.body.includes(TOKEN), false, answer.body);
  assert.match(answer.body, /got \[redacted\]/);
});
