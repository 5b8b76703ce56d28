/**
 * A remote model over real HTTP (OpenAI and Anthropic) solves a task while its endpoint echoes
 * every credential it got, in every form: no trace of them is left in the state folder or the
 * output, the agent itself sees the redacted answer, and the run still replays (no key, no call)
 * and verifies.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { Results } from "../../../src/report/results.ts";
import {
  anthropicReply,
  fakeProvider,
  openAiReply,
  type Received,
  type Reply,
} from "../../model/_fake_provider.ts";
import { requireDocker } from "../../_docker.ts";
import { type CliResult, runVerdict, scratchDir } from "../../_verdict.ts";
import { runVerdictInProcess } from "../../cli/_in_process.ts";

const KEY = "sk-verdict-ECHO-7d3e91b0c2a4f865";
const USER = "gateway-user";
const PASSWORD = "gw-pass-51c0ffee9a";

function base64(text: string): string {
  return btoa(text).replace(/=+$/, "");
}

/** The key with its first character as a JSON escape: only a parse of the arguments shows it. */
function escaped(secret: string): string {
  return `\\u${secret.charCodeAt(0).toString(16).padStart(4, "0")}${secret.slice(1)}`;
}

/** Every form of every secret, by the name a failure should show. */
const FORMS: Record<string, string> = {
  key: KEY,
  "key in base64": base64(KEY),
  password: PASSWORD,
  "user:password": `${USER}:${PASSWORD}`,
  "user:password in base64 (the Basic header)": base64(`${USER}:${PASSWORD}`),
};

/**
 * What the endpoint echoes: every credential header it received, as sent and decoded (a Bearer
 * token or an `x-api-key` also in base64; a Basic header also as `user:password`).
 */
function echo(request: Received): string {
  return ["authorization", "x-api-key"].flatMap((name) => {
    const value = request.headers.get(name);
    if (value === null) return [];
    const basic = /^Basic (.+)$/.exec(value);
    const token = value.replace(/^Bearer /, "");
    return [`${name}: ${value} = ${basic ? atob(basic[1]) : base64(token)}`];
  }).join("; ");
}

function echoingOpenAi(request: Received): Reply {
  const secret = request.headers.get("authorization")!.replace("Bearer ", "");
  if ((request.body.messages as { role: string }[]).some((message) => message.role === "tool")) {
    return openAiReply(null, [{
      id: "call_4",
      name: "finish",
      arguments: JSON.stringify({ summary: `done with ${echo(request)}` }),
    }]);
  }
  return openAiReply(`You called me with ${echo(request)}`, [
    {
      id: "call_1",
      name: "write_file",
      arguments: JSON.stringify({ path: "leaked.txt", content: echo(request) }),
    },
    {
      id: "call_2",
      name: "write_file",
      arguments: `{"path":"escaped.txt","content":"${escaped(secret)}"}`,
    },
    {
      id: "call_3",
      name: "write_file",
      arguments: JSON.stringify({ path: "answer.txt", content: "yes\n" }),
    },
  ]);
}

function echoingAnthropic(request: Received): Reply {
  const messages = request.body.messages as { content: { type: string }[] }[];
  if (messages.some((message) => message.content.some((block) => block.type === "tool_result"))) {
    return anthropicReply("", [{
      id: "toolu_2",
      name: "finish",
      input: { summary: `done with ${echo(request)}` },
    }]);
  }
  return anthropicReply(`You called me with ${echo(request)}`, [{
    id: "toolu_1",
    name: "write_file",
    input: { path: "answer.txt", content: `yes\n` },
  }, {
    id: "toolu_3",
    name: "write_file",
    input: { path: "leaked.txt", content: echo(request) },
  }]);
}

/** Every file under `root` that holds one of the forms, as bytes, with the form's name. */
async function traces(root: string): Promise<string[]> {
  const found: string[] = [];
  const needles = Object.entries(FORMS).map(([name, form]) =>
    [name, new TextEncoder().encode(form)] as const
  );
  for await (const entry of Deno.readDir(root)) {
    const path = join(root, entry.name);
    if (entry.isDirectory) found.push(...await traces(path));
    else if (entry.isFile) {
      const bytes = await Deno.readFile(path);
      for (const [name, needle] of needles) {
        if (contains(bytes, needle)) found.push(`${path}: ${name}`);
      }
    }
  }
  return found;
}

function contains(haystack: Uint8Array, needle: Uint8Array): boolean {
  outer: for (let start = 0; start <= haystack.length - needle.length; start++) {
    for (let index = 0; index < needle.length; index++) {
      if (haystack[start + index] !== needle[index]) continue outer;
    }
    return true;
  }
  return false;
}

function printed(result: CliResult): string[] {
  return Object.entries(FORMS).filter(([, form]) =>
    result.stdout.includes(form) || result.stderr.includes(form)
  ).map(([name]) => name);
}

/**
 * The run's replay and integrity check both pass on the redacted record; replay calls no model, so
 * it needs no key (none is given) and sends nothing to `server`.
 */
async function assertReplayable(
  home: string,
  run: string,
  server: { received: Received[] },
): Promise<void> {
  const calls = server.received.length;
  const replayed = await runVerdictInProcess(["replay", run, "--home", home]);
  assert.equal(replayed.code, 0, replayed.stderr);
  assert.match(replayed.stdout, /identical \(1 identical, 0 diverged, 0 skipped\)/);
  assert.equal(server.received.length, calls, "no request reached the provider");
  const verified = await runVerdictInProcess(["verify", run, "--home", home]);
  assert.equal(verified.code, 0, verified.stderr + verified.stdout);
}

Deno.test("an OpenAI model solves a task; its endpoint echoing the key leaves no trace of it in the state folder; the run still replays and verifies", async () => {
  await requireDocker();
  await using home = await scratchDir("redaction");
  await using server = fakeProvider([], echoingOpenAi);
  const result = await runVerdict(
    [
      "eval",
      "tests/fixtures/bench",
      "--model",
      "openai:gpt-test",
      "--base-url",
      `${server.url}/v1`,
      "--no-cost",
      "--json",
      "--home",
      home.path,
    ],
    { env: { OPENAI_API_KEY: KEY } },
  );
  assert.equal(result.code, 0, result.stderr);
  const { run, trials: [trial] } = JSON.parse(result.stdout) as Results;
  assert.deepEqual([trial.verdict, trial.stop_reason], ["pass", "completed"], trial.reason);
  assert.equal(server.received[0].headers.get("authorization"), `Bearer ${KEY}`);

  assert.deepEqual(await traces(home.path), []);
  assert.deepEqual(printed(result), []);
  // The agent itself saw the redacted answer (so record and reality agree): what it sent back
  // holds the mark, never the key.
  const followUp = JSON.stringify(server.received[1].body);
  assert.ok(followUp.includes("[redacted]"), followUp);
  assert.ok(!followUp.includes(KEY) && !followUp.includes(base64(KEY)), followUp);
  await assertReplayable(home.path, run.id, server);
});

Deno.test("an Anthropic model solves a task; its endpoint echoing the key and base-URL credentials leaves no trace of them", async () => {
  await requireDocker();
  await using home = await scratchDir("redaction");
  await using server = fakeProvider([], echoingAnthropic);
  const result = await runVerdict(
    [
      "eval",
      "tests/fixtures/bench",
      "--model",
      "anthropic:claude-test",
      "--base-url",
      server.url.replace("http://", `http://${USER}:${PASSWORD}@`),
      "--no-cost",
      "--json",
      "--home",
      home.path,
    ],
    { env: { ANTHROPIC_API_KEY: KEY } },
  );
  assert.equal(result.code, 0, result.stderr);
  const { run, trials: [trial] } = JSON.parse(result.stdout) as Results;
  assert.equal(trial.verdict, "pass", trial.reason);
  assert.equal(trial.cost_usd, null, "--no-cost: the cost is unknown, never 0");
  assert.equal(server.received[0].headers.get("x-api-key"), KEY);
  assert.equal(
    server.received[0].headers.get("authorization"),
    `Basic ${btoa(`${USER}:${PASSWORD}`)}`,
    "fetch sends the URL's credentials as a Basic header: the endpoint can echo them",
  );

  assert.deepEqual(await traces(home.path), []);
  assert.deepEqual(printed(result), []);
  await assertReplayable(home.path, run.id, server);
});
