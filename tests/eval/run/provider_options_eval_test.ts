/**
 * An OpenAI-compatible model over real HTTP solves a task, priced from `--prices` (cached input
 * included), with `eval`'s provider options from the command line: they reach a loopback provider
 * on every call, the run records them (a secret header's value never), `verdict replay` re-drives
 * the run with them identically, and a bad value exits 2 naming the flag and the fix before any
 * call.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { Results } from "../../../src/report/results.ts";
import { openStore } from "../../../src/store/store.ts";
import { fakeProvider } from "../../model/_fake_provider.ts";
import { requireDocker } from "../../_docker.ts";
import { runVerdict, scratchDir } from "../../_verdict.ts";
import { runVerdictInProcess } from "../../cli/_in_process.ts";
import { filesContaining, solvingOpenAi } from "../_remote_run.ts";

const GATEWAY_TOKEN = "gw-secret-5e6f7a8b9c0d";

Deno.test("an OpenAI-compatible model solves a task, priced; --temperature --max-output-tokens --header --retries: on the wire of every call, recorded, replayed identically", async () => {
  await requireDocker();
  await using home = await scratchDir("provider-options");
  await using server = fakeProvider([], solvingOpenAi);
  const prices = join(home.path, "prices.yaml");
  await Deno.writeTextFile(
    prices,
    'openai:gpt-test: { input: "2.50", output: "10", cached_input: "1.25" }\n',
  );
  const result = await runVerdict([
    "eval",
    "tests/fixtures/bench",
    "--model",
    "openai:gpt-test",
    "--base-url",
    `${server.url}/v1`,
    "--prices",
    prices,
    "--temperature",
    "0.25",
    "--max-output-tokens",
    "640",
    "--header",
    "X-Team: qa",
    "--header",
    `Authorization: Bearer ${GATEWAY_TOKEN}`,
    "--retries",
    "1",
    "--json",
    "--home",
    home.path,
  ]);
  assert.equal(result.code, 0, result.stderr);
  const [trial] = (JSON.parse(result.stdout) as Results).trials;
  assert.deepEqual([trial.verdict, trial.stop_reason, trial.steps], ["pass", "completed", 2]);
  assert.deepEqual(trial.tokens, { input: 200, output: 40 });
  assert.equal(trial.cost_usd, 0.0008, "2 × (60 × $2.50 + 40 × $1.25 + 20 × $10) per million");
  assert.equal(server.received.length, 2);
  for (const sent of server.received) {
    assert.equal(sent.body.temperature, 0.25);
    assert.equal(sent.body.max_completion_tokens, 640);
    assert.equal(sent.headers.get("x-team"), "qa");
    assert.equal(sent.headers.get("authorization"), `Bearer ${GATEWAY_TOKEN}`);
  }

  const store = openStore(join(home.path, "verdict.db"));
  const run = store.runs.list()[0];
  store.close();
  const settings = (run.config as { settings: { provider_options: unknown } }).settings;
  assert.deepEqual(settings.provider_options, {
    temperature: 0.25,
    max_output_tokens: 640,
    headers: { "x-team": "qa", authorization: "[redacted]" },
    retries: 1,
  });
  assert.deepEqual(await filesContaining(home.path, GATEWAY_TOKEN), []);

  const replay = await runVerdictInProcess(["replay", run.id, "--home", home.path]);
  assert.equal(replay.code, 0, replay.stdout + replay.stderr);
  assert.match(replay.stdout, /identical \(1 identical/);
});

Deno.test("a bad provider option exits 2 naming the flag and the fix, before any call", async () => {
  await using home = await scratchDir("provider-options");
  const evalWith = (model: string, ...flags: string[]) =>
    runVerdictInProcess(
      [
        "eval",
        "tests/fixtures/bench",
        "--model",
        model,
        "--base-url",
        "http://127.0.0.1:9/v1",
        "--no-cost",
        ...flags,
        "--home",
        home.path,
      ],
      { ANTHROPIC_API_KEY: "sk-ant-test-123456789" },
    );
  for (
    const [model, flags, message] of [
      [
        "openai:gpt-test",
        ["--temperature", "2.5"],
        /--temperature 2.5 must be a number from 0 to 2/,
      ],
      ["anthropic:claude-test", ["--temperature", "1.5"], /--temperature 1.5: .* 0 to 1; pass/],
      ["openai:gpt-4o", ["--reasoning-effort", "high"], /--reasoning-effort high: .*drop/],
      [
        "openai:o3",
        ["--reasoning-effort", "max"],
        /--reasoning-effort max is not a level: use low/,
      ],
      ["openai:gpt-test", ["--header", "nocolon"], /--header "nocolon" is not NAME:VALUE/],
      ["openai:gpt-test", ["--retries", "-1"], /--retries -1 is not a whole number of at least 0/],
      ["openai:gpt-test", ["--max-output-tokens", "0"], /--max-output-tokens 0 is not a whole/],
    ] as const
  ) {
    const result = await evalWith(model, ...flags);
    assert.equal(result.code, 2, `${flags.join(" ")}: ${result.stderr}`);
    assert.match(result.stderr, message);
  }
  const nop = await runVerdictInProcess([
    "eval",
    "tests/fixtures/bench",
    "--agent",
    "nop",
    "--temperature",
    "0.5",
    "--home",
    home.path,
  ]);
  assert.equal(nop.code, 2, nop.stderr);
  assert.match(nop.stderr, /--temperature is for agents driven by a model; --agent nop uses none/);
});
