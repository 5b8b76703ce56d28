/**
 * The model gateway from the CLI, on Docker: `eval --agent cmd:...` in live mode forwards to a
 * loopback upstream with the real key while the container sees only the dummy one, and no trace
 * of the real key is left in the state folder; under `--model scripted` a token budget stops an
 * agent that keeps calling, with the stop reason `budget`.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { Results } from "../../../src/report/results.ts";
import { all, EVENT, last } from "../../../src/store/event_catalogue.ts";
import { openStore } from "../../../src/store/store.ts";
import { fakeProvider, openAiReply } from "../../model/_fake_provider.ts";
import { requireDocker } from "../../_docker.ts";
import { type CliResult, runVerdict, scratchDir } from "../../_verdict.ts";
import { runVerdictInProcess } from "../../cli/_in_process.ts";

/**
 * A hostile client: holds 500 connections to the gateway open, then calls it until it refuses,
 * ignoring the answers; prints the refusal and the count.
 */
const KEEPS_CALLING = `import json, os, socket, urllib.error, urllib.request
held = [socket.create_connection(("127.0.0.1", 8790)) for _ in range(500)]
print(f"holding {len(held)} connections")
url = os.environ["OPENAI_BASE_URL"].rstrip("/") + "/chat/completions"
padding = "Please keep going. " * 100
answered = 0
for number in range(1, 501):
    body = json.dumps({"model": "loop", "messages": [{"role": "user", "content": padding}]})
    request = urllib.request.Request(url, data=body.encode(), method="POST", headers={
        "Content-Type": "application/json",
        "Authorization": "Bearer " + os.environ["OPENAI_API_KEY"]})
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            response.read()
        answered += 1
    except urllib.error.HTTPError as error:
        print(f"call {number} refused: HTTP {error.code}: {error.read().decode()[:400]}")
        break
print(f"answered: {answered}")
`;

/** The trial's events, read back from the state folder. */
function trialEvents(home: string, session: string) {
  const store = openStore(join(home, "verdict.db"));
  try {
    return store.events.read(session);
  } finally {
    store.close();
  }
}

/** The run's one trial, from its `results.json`. */
async function onlyTrial(home: string, result: CliResult) {
  const runs = [...Deno.readDirSync(join(home, "runs"))].map((entry) => entry.name);
  assert.equal(runs.length, 1, `one run expected, found [${runs}]: ${result.stderr}`);
  const results = JSON.parse(
    await Deno.readTextFile(join(home, "runs", runs[0], "results.json")),
  ) as Results;
  assert.equal(results.trials.length, 1, result.stderr);
  return { run: runs[0], trial: results.trials[0] };
}

/** Every file under `root` whose bytes hold `needle`. */
async function filesHolding(root: string, needle: string): Promise<string[]> {
  const found: string[] = [];
  const bytes = new TextEncoder().encode(needle);
  for await (const entry of Deno.readDir(root)) {
    const path = join(root, entry.name);
    if (entry.isDirectory) found.push(...await filesHolding(path, needle));
    else if (entry.isFile && holds(await Deno.readFile(path), bytes)) found.push(path);
  }
  return found;
}

function holds(haystack: Uint8Array, needle: Uint8Array): boolean {
  outer: for (let start = 0; start <= haystack.length - needle.length; start++) {
    for (let index = 0; index < needle.length; index++) {
      if (haystack[start + index] !== needle[index]) continue outer;
    }
    return true;
  }
  return false;
}

Deno.test("live mode: the upstream gets the real key, the container and the state folder never see it", async () => {
  await requireDocker();
  await using home = await scratchDir("gateway_live");
  const realKey = `sk-real-${crypto.randomUUID().replaceAll("-", "")}`;
  await using upstream = fakeProvider([], () => openAiReply("Nothing to do here."));
  const result = await runVerdict([
    "eval",
    "tasks/fix-slugify",
    "--agent",
    "cmd:env; python3 /verdict/agent/agent.py",
    "--agent-files",
    "tests/fixtures/agents/py_agent",
    "--model",
    "openai:gpt-test",
    "--base-url",
    `${upstream.url}/v1`,
    "--no-cost",
    "--seed",
    "1301",
    "--home",
    home.path,
  ], { env: { OPENAI_API_KEY: realKey } });
  const { run, trial } = await onlyTrial(home.path, result);
  // The agent answers after one call without fixing anything: a verdict (fail) all the same.
  assert.equal(result.code, 0, result.stderr);
  assert.deepEqual([trial.stop_reason, trial.verdict], ["completed", "fail"], trial.reason);

  assert.equal(upstream.received.length, 1, result.stderr);
  assert.equal(upstream.received[0].path, "/v1/chat/completions");
  assert.equal(upstream.received[0].headers.get("authorization"), `Bearer ${realKey}`);

  const events = trialEvents(home.path, trial.session);
  const agentCmd = last(events, EVENT.agentCmd);
  assert(agentCmd !== undefined, "the agent.cmd event is recorded");
  assert.match(agentCmd.payload.stdout, /^OPENAI_API_KEY=verdict-dummy-[0-9a-f]{32}$/m);
  assert.match(agentCmd.payload.stdout, /^OPENAI_BASE_URL=http:\/\/127\.0\.0\.1:\d+\/v1$/m);
  assert(!agentCmd.payload.stdout.includes("sk-real"), agentCmd.payload.stdout);
  assert(!agentCmd.payload.stderr.includes("sk-real"), agentCmd.payload.stderr);

  // The exchange is in the chain: the request as the agent sent it (the body, its own `model`
  // included, reaches the upstream unchanged: the budget affords the default cap, so it sends
  // none), the answer with its usage.
  const [call] = all(events, EVENT.gatewayCall);
  const [answer] = all(events, EVENT.gatewayAnswer);
  assert.equal(call.payload.model, upstream.received[0].body.model);
  assert.equal(call.payload.format, "chat_completions");
  assert.deepEqual(JSON.parse(call.payload.body), upstream.received[0].body);
  assert.equal(answer.payload.status, 200);
  // Usage as the project counts it: input excludes the cached part, the trial's tokens include it.
  assert.deepEqual(answer.payload.usage, { input: 60, cachedInput: 40, output: 20 });
  assert.deepEqual([trial.steps, trial.tokens], [1, { input: 100, output: 20 }]);

  assert.deepEqual(await filesHolding(home.path, realKey), []);
  assert.deepEqual(await filesHolding(home.path, "sk-real"), []);
  assert(!(result.stdout + result.stderr).includes(realKey));
  const verified = await runVerdictInProcess(["verify", run, "--home", home.path]);
  assert.equal(verified.code, 0, verified.stdout + verified.stderr);

  // The run replays from its record alone: the upstream is gone, and no key is given.
  await upstream[Symbol.asyncDispose]();
  const replayed = await runVerdictInProcess(["replay", run, "--home", home.path]);
  assert.equal(replayed.code, 0, replayed.stdout + replayed.stderr);
  assert.match(replayed.stdout, /identical \(1 identical, 0 diverged, 0 skipped\)/);
  assert.equal(upstream.received.length, 1);
});

Deno.test("a token budget stops a cmd agent that keeps calling with 500 connections held open: the next call gets HTTP 400, the stop reason is budget", async () => {
  await requireDocker();
  await using home = await scratchDir("gateway_budget");
  const agentFiles = join(home.path, "agent");
  await Deno.mkdir(agentFiles);
  await Deno.writeTextFile(join(agentFiles, "keeps_calling.py"), KEEPS_CALLING);
  const result = await runVerdict([
    "eval",
    "tests/fixtures/token-budget",
    "--agent",
    "cmd:python3 /verdict/agent/keeps_calling.py",
    "--agent-files",
    agentFiles,
    "--model",
    "scripted",
    "--seed",
    "1302",
    "--home",
    join(home.path, "state"),
  ]);
  const { trial } = await onlyTrial(join(home.path, "state"), result);
  assert.equal(result.code, 0, result.stderr);
  assert.equal(trial.stop_reason, "budget", `${trial.reason}\n${result.stderr}`);
  assert.match(trial.reason, /^stopped on its budget \(max_total_tokens 3000 cannot afford/);

  const events = trialEvents(join(home.path, "state"), trial.session);
  const { stdout } = last(events, EVENT.agentCmd)!.payload;
  assert.match(last(events, EVENT.agentStopped)!.payload.detail ?? "", /max_total_tokens 3000/);
  assert.match(stdout, /^holding 500 connections$/m);
  const answered = Number(/^answered: (\d+)$/m.exec(stdout)?.[1]);
  // The token budget (3000) bites long before the cap of model calls (max_steps 100).
  assert.match(
    stdout,
    new RegExp(
      `^call ${answered + 1} refused: HTTP 400: .*max_total_tokens 3000 cannot afford another call`,
      "m",
    ),
  );
  assert(answered > 1 && answered < 100, stdout);
  assert.equal(trial.steps, answered);
  // Each call held its worst case until answered, so the budget was never passed.
  const used = trial.tokens.input + trial.tokens.output;
  assert(used > 1000 && used <= 3000, JSON.stringify(trial.tokens));
  const answers = all(events, EVENT.gatewayAnswer).map((event) => event.payload.status);
  assert.deepEqual(answers, [...Array(answered).fill(200), 400]);
});
