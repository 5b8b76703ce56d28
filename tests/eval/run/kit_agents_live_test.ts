/**
 * Claude Code and Codex CLI against a live provider: a loopback upstream speaking Anthropic
 * Messages and OpenAI Responses (the gateway's own codecs, answered by the scripted model),
 * streaming as the CLIs ask. Each CLI passes a task whose tests check that the agent's tools saw
 * only the gateway's dummy key; the real key reaches the upstream and is found nowhere in the
 * state folder. A CLI killed at the task's deadline leaves no container behind. (A gateway refusal
 * on a token budget stopping Claude Code with stop reason `budget` is shown by
 * `kit_agents_eval_test.ts`, on the bundled `budget-small-fix`.)
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { SplitMix64 } from "../../../src/core/rng.ts";
import { gatewayHandler } from "../../../src/gateway/handler.ts";
import { modelBackend } from "../../../src/gateway/model_backend.ts";
import { scriptedAgentModel } from "../../../src/gateway/scripted_agent_model.ts";
import { heuristicCounter } from "../../../src/model/tokens.ts";
import { loadTask } from "../../../src/task/load_task.ts";
import { containersLabelled, requireDocker } from "../../_docker.ts";
import { requireKits } from "../../_kits.ts";
import { runVerdict, scratchDir } from "../../_verdict.ts";

const REAL_KEY = "sk-verdict-live-test-0123456789abcdef";
const LIVE_ENV = "tests/fixtures/installed/live-env";

interface Seen {
  path: string;
  model: string;
  stream: boolean;
  key: string | null;
  /** The output cap it was sent with. */
  cap: number | undefined;
}

/** A loopback provider answering with the scripted model for `task`, holding `REAL_KEY`. */
async function liveUpstream(taskDir: string) {
  const model = await scriptedAgentModel({
    task: await loadTask(taskDir),
    rng: new SplitMix64(7),
    faults: 0,
    counter: heuristicCounter,
  });
  const handler = gatewayHandler({ key: REAL_KEY, backend: modelBackend(model) });
  const seen: Seen[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    const body = request.method === "POST" ? await request.clone().json() : {};
    seen.push({
      path: new URL(request.url).pathname,
      model: body.model,
      stream: body.stream === true,
      cap: body.max_tokens ?? body.max_output_tokens,
      key: request.headers.get("x-api-key") ??
        request.headers.get("authorization")?.replace(/^Bearer /, "") ?? null,
    });
    return handler(request);
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    seen,
    [Symbol.asyncDispose]: () => server.shutdown(),
  };
}

/** Every file under `folder` but the kits, as text. */
async function stateText(folder: string): Promise<string> {
  let text = "";
  for await (const entry of Deno.readDir(folder)) {
    const path = join(folder, entry.name);
    if (entry.isDirectory && entry.name !== "agents") text += await stateText(path);
    if (entry.isFile) text += new TextDecoder().decode(await Deno.readFile(path));
  }
  return text;
}

for (
  const { agent, provider, model, baseUrl, keyName, route } of [
    {
      agent: "claude-code",
      provider: "anthropic",
      model: "claude-live-test",
      baseUrl: (url: string) => url,
      keyName: "ANTHROPIC_API_KEY",
      route: "/v1/messages",
    },
    {
      agent: "codex",
      provider: "openai",
      model: "gpt-live-test",
      baseUrl: (url: string) => `${url}/v1`,
      keyName: "OPENAI_API_KEY",
      route: "/v1/responses",
    },
  ]
) {
  Deno.test(
    `${agent} passes a task against a live streaming upstream, and the real key stays out of its container and the record${
      agent === "claude-code"
        ? "; priced as Sonnet, its 32,000-token cap is lowered to what $0.50 affords, and more than one call is made"
        : ""
    }`,
    async () => {
      await requireDocker();
      await using home = await scratchDir(`kit-live-${agent}`);
      await requireKits(home.path, [agent]);
      await using upstream = await liveUpstream(LIVE_ENV);
      const prices = join(home.path, "prices.yaml");
      await Deno.writeTextFile(
        prices,
        `${provider}:${model}: { input: 3, output: 15, cached_input: 0.3, cache_write: 3.75 }\n`,
      );
      const evaluated = await runVerdict([
        "eval",
        LIVE_ENV,
        "--agent",
        agent,
        "--model",
        `${provider}:${model}`,
        "--base-url",
        baseUrl(upstream.url),
        ...(agent === "claude-code" ? ["--prices", prices] : ["--no-cost"]),
        "--home",
        home.path,
      ], { env: { [keyName]: REAL_KEY } });
      assert.equal(evaluated.code, 0, evaluated.stdout + evaluated.stderr);
      assert.match(evaluated.stdout, /1 of 1 trials: 1 passed/, evaluated.stdout);
      const calls = upstream.seen.filter((call) => call.path === route);
      assert.ok(calls.length >= 2, JSON.stringify(upstream.seen));
      for (const call of calls) {
        assert.equal(call.model, model);
        assert.equal(call.stream, true);
        assert.equal(call.key, REAL_KEY);
      }
      assert.equal((await stateText(home.path)).includes(REAL_KEY), false);
      if (agent !== "claude-code") return;
      // Its first call reserves its body's bytes at the cache-write price and what is left of the
      // task's $0.50 for its answer: less than the 32,000 tokens it asks for ($0.48 alone).
      assert.equal(calls.length >= 2, true);
      assert.ok(calls[0].cap !== undefined && calls[0].cap < 32_000, `cap ${calls[0].cap}`);
      const run = /^run (\S+):/m.exec(evaluated.stdout)![1];
      const [trial] = JSON.parse(
        await Deno.readTextFile(join(home.path, "runs", run, "results.json")),
      ).trials;
      assert.ok(trial.cost_usd > 0 && trial.cost_usd <= 0.5, `$${trial.cost_usd}`);
    },
  );
}

Deno.test("a CLI past the task's deadline is killed with its container, and the trial stops on timeout", async () => {
  const docker = await requireDocker();
  await using home = await scratchDir("kit-deadline");
  await requireKits(home.path, ["claude-code"]);
  const evaluated = await runVerdict([
    "eval",
    "tests/fixtures/installed/sleepy",
    "--agent",
    "claude-code",
    "--home",
    home.path,
  ]);
  assert.equal(evaluated.code, 0, evaluated.stdout + evaluated.stderr);
  const run = /^run (\S+):/m.exec(evaluated.stdout)![1];
  const results = JSON.parse(await Deno.readTextFile(join(home.path, "runs", run, "results.json")));
  const [trial] = results.trials;
  assert.equal(trial.stop_reason, "timeout");
  assert.equal(trial.verdict, "fail");
  // What the CLI started lived in the container's process namespace, and went with it.
  assert.deepEqual(await containersLabelled(docker, `verdict.run=${run}`), []);
});

/** How the provider fails: 500 on every attempt, or a stream cut after its first event. */
const FAULTS = {
  "answers 500": {
    reply: () =>
      Response.json({ error: { type: "api_error", message: "the provider is down" } }, {
        status: 500,
      }),
    words: /HTTP 500/,
  },
  "cuts its stream": {
    reply: () =>
      new Response(
        new ReadableStream({
          start(controller) {
            controller.enqueue(new TextEncoder().encode('event: ping\ndata: {"type":"ping"}\n\n'));
            controller.error(new Error("cut"));
          },
        }),
        { headers: { "content-type": "text/event-stream" } },
      ),
    words: /connection failed/,
  },
};

for (
  const [fault, { reply, words }] of Object.entries(FAULTS)
) {
  for (
    const { agent, provider, baseUrl, keyName, route } of [
      {
        agent: "claude-code",
        provider: "anthropic",
        baseUrl: (url: string) => url,
        keyName: "ANTHROPIC_API_KEY",
        route: "/v1/messages",
      },
      {
        agent: "codex",
        provider: "openai",
        baseUrl: (url: string) => `${url}/v1`,
        keyName: "OPENAI_API_KEY",
        route: "/v1/responses",
      },
    ]
  ) {
    Deno.test(`${agent} against a provider that ${fault}: the trial is infrastructure's (exit 3), and the upstream sees only the gateway's attempts`, async () => {
      await requireDocker();
      await using home = await scratchDir(`kit-down-${agent}`);
      await requireKits(home.path, [agent]);
      const seen: string[] = [];
      await using _upstream = Deno.serve(
        { hostname: "127.0.0.1", port: 0, onListen() {} },
        (request) => {
          seen.push(new URL(request.url).pathname);
          return reply();
        },
      );
      const evaluated = await runVerdict([
        "eval",
        LIVE_ENV,
        "--agent",
        agent,
        "--model",
        `${provider}:down-test`,
        "--base-url",
        baseUrl(`http://127.0.0.1:${_upstream.addr.port}`),
        "--retries",
        "1",
        "--no-cost",
        "--home",
        home.path,
      ], { env: { [keyName]: REAL_KEY } });
      assert.equal(evaluated.code, 3, evaluated.stdout + evaluated.stderr);
      const run = /^run (\S+):/m.exec(evaluated.stdout)![1];
      const results = JSON.parse(
        await Deno.readTextFile(join(home.path, "runs", run, "results.json")),
      );
      const [trial] = results.trials;
      assert.equal(trial.bucket, "infrastructure_error", trial.reason);
      assert.match(trial.reason, /^the model provider failed \d+ calls?: /);
      assert.match(trial.reason, words);
      // Two attempts (--retries 1) for the one call the CLI made before it gave up.
      assert.deepEqual(seen, [route, route]);
    });
  }
}
