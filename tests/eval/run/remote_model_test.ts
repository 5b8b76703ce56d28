/**
 * A remote model over real HTTP, its failure paths: an endpoint that refuses the key, a model
 * without a price, a reply past the task's deadline, a provider that hangs or drips, bad flags.
 * A remote model solving a task is shown by `provider_options_eval_test.ts` (OpenAI, priced) and
 * `secret_redaction_test.ts` (OpenAI and Anthropic, their keys on the wire and nowhere in the
 * state folder, the run replayed without a key or a call).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { Results } from "../../../src/report/results.ts";
import { fakeProvider, openAiReply } from "../../model/_fake_provider.ts";
import { stubbornProvider } from "../../model/_stubborn_provider.ts";
import { requireDocker } from "../../_docker.ts";
import { runVerdict, scratchDir } from "../../_verdict.ts";
import { runVerdictInProcess } from "../../cli/_in_process.ts";
import { filesContaining, solvingOpenAi } from "../_remote_run.ts";

const SECRET = "sk-verdict-TEST-4f9a1c7e2b";

Deno.test("an endpoint that refuses the key is an infrastructure error, exit 3, the key redacted from its reason and the state folder", async () => {
  await requireDocker();
  await using home = await scratchDir("remote");
  // A provider error that echoes the key: the trial's reason has it redacted.
  await using rejecting = fakeProvider(
    [],
    () => ({ status: 401, body: { error: { message: `Incorrect API key provided: ${SECRET}` } } }),
  );
  const rejected = await runVerdict(
    [
      "eval",
      "tests/fixtures/bench",
      "--model",
      "openai:gpt-test",
      "--base-url",
      `${rejecting.url}/v1`,
      "--no-cost",
      "--json",
      "--home",
      home.path,
    ],
    { env: { OPENAI_API_KEY: SECRET } },
  );
  assert.equal(rejected.code, 3, "an endpoint that refuses is an infrastructure error");
  const [failed] = (JSON.parse(rejected.stdout) as Results).trials;
  assert.equal(failed.bucket, "infrastructure_error");
  assert.match(failed.reason, /HTTP 401: Incorrect API key provided: \[redacted\]/);
  assert.equal(rejecting.received[0].headers.get("authorization"), `Bearer ${SECRET}`);
  assert.ok(!rejected.stderr.includes(SECRET) && !rejected.stdout.includes(SECRET));
  assert.deepEqual(await filesContaining(home.path, SECRET), []);
});

Deno.test("a real model without a price stops before its first call, exit 2", async () => {
  await using home = await scratchDir("remote");
  await using server = fakeProvider([], solvingOpenAi);
  const result = await runVerdictInProcess(
    [
      "eval",
      "tests/fixtures/bench",
      "--model",
      "openai:gpt-test",
      "--base-url",
      `${server.url}/v1`,
      "--home",
      home.path,
    ],
    { OPENAI_API_KEY: SECRET },
  );
  assert.equal(result.code, 2);
  assert.match(result.stderr, /no price for openai:gpt-test: pass --prices FILE .* or --no-cost/);
  assert.equal(server.received.length, 0);
  const badSpec = await runVerdictInProcess([
    "eval",
    "tests/fixtures/bench",
    "--model",
    "gpt-4o",
    "--home",
    home.path,
  ]);
  assert.equal(badSpec.code, 2);
  assert.match(
    badSpec.stderr,
    /unknown kind 'gpt-4o'; use scripted, openai:MODEL, anthropic:MODEL/,
  );
});

Deno.test("a slow model past the task's deadline ends the trial as a timeout", async () => {
  await requireDocker();
  await using home = await scratchDir("remote");
  // Timed from the request's arrival: a loaded machine's container start-up is not the point.
  let arrived = Number.NaN;
  await using server = fakeProvider([], () => {
    arrived = performance.now();
    return { ...openAiReply("too late"), delayMs: 20_000 };
  });
  const result = await runVerdict(
    [
      "eval",
      "tests/fixtures/deadline",
      "--model",
      "openai:gpt-test",
      "--base-url",
      `${server.url}/v1`,
      "--no-cost",
      "--json",
      "--home",
      home.path,
    ],
  );
  assert.equal(result.code, 0, result.stderr);
  const [trial] = (JSON.parse(result.stdout) as Results).trials;
  assert.deepEqual([trial.stop_reason, trial.verdict], ["timeout", "fail"]);
  assert.ok(
    performance.now() - arrived < 20_000,
    "aborted at the 2 s deadline, not after the 20 s reply",
  );
});

for (const misbehaviour of ["hang", "drip"] as const) {
  Deno.test(
    `a provider that ${
      misbehaviour === "hang" ? "accepts and never answers" : "sends a body that drips forever"
    }, with --request-timeout 2 and --retries 1: infrastructure_error after two attempts, exit 3`,
    async () => {
      await requireDocker();
      await using home = await scratchDir("remote");
      await using server = stubbornProvider(misbehaviour);
      const result = await runVerdict([
        "eval",
        "tests/fixtures/bench",
        "--model",
        "openai:gpt-test",
        "--base-url",
        `${server.url}/v1`,
        "--no-cost",
        "--request-timeout",
        "2",
        "--retries",
        "1",
        "--json",
        "--home",
        home.path,
      ]);
      assert.equal(result.code, 3, result.stderr);
      const [trial] = (JSON.parse(result.stdout) as Results).trials;
      assert.equal(trial.bucket, "infrastructure_error", trial.reason);
      assert.match(
        trial.reason,
        misbehaviour === "hang"
          ? /openai endpoint unavailable after 2 attempts: no response within 2 s \(--request-timeout\)/
          : /after 2 attempts: the response \(HTTP 200\) did not finish arriving within 2 s/,
      );
      assert.equal(server.requests, 2, "each recorded attempt reached the provider once");
      // The second attempt followed the first's 2 s timeout and a backoff of at most 0.5 s,
      // timed between the provider's two arrivals, whatever the container start-up took.
      const gap = (server.arrivals[1] - server.arrivals[0]) / 1000;
      assert.ok(
        gap >= 2 && gap < 10,
        `the second attempt came ${gap.toFixed(1)} s after the first`,
      );
    },
  );
}

Deno.test("--request-timeout takes a positive number of seconds; --prices with --no-cost is a contradiction", async () => {
  await using home = await scratchDir("remote");
  const prices = join(home.path, "prices.yaml");
  await Deno.writeTextFile(prices, "openai:gpt-test: { input: 1, output: 1 }\n");
  const evalWith = (...flags: string[]) =>
    runVerdictInProcess([
      "eval",
      "tests/fixtures/bench",
      "--model",
      "openai:gpt-test",
      "--base-url",
      "http://127.0.0.1:9/v1",
      ...flags,
      "--home",
      home.path,
    ]);
  for (const value of ["0", "-5", "abc", "1e400", "", "100000"]) {
    const result = await evalWith("--no-cost", `--request-timeout=${value}`);
    assert.equal(result.code, 2, `--request-timeout ${value}: ${result.stderr}`);
    assert.match(
      result.stderr,
      /--request-timeout .* must be a number of seconds above 0 and at most 86400, such as 600/,
    );
  }
  const both = await evalWith("--prices", prices, "--no-cost");
  assert.equal(both.code, 2, both.stderr);
  assert.match(both.stderr, /--prices and --no-cost contradict each other/);
});
