/**
 * Claude Code and Codex CLI as installed agents, without Docker: the memory sandbox answers the
 * CLI's exec with a real run's stdout (`tests/fixtures/transcripts/`), so what the agent asks of
 * its container (the kit's binary, its flags, its environment, Codex's config), what it records
 * and how it reads the end of a run are checked in milliseconds.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { AgentContext, AgentOutcome } from "../../src/agent/agent.ts";
import { CLAUDE_CODE_HOME, claudeCodeAgent } from "../../src/agent/claude_code_agent.ts";
import { readClaudeCodeTranscript } from "../../src/agent/claude_code_transcript.ts";
import { cmdAgent, type InstalledAgent } from "../../src/agent/cmd_agent.ts";
import { CODEX_HOME, codexAgent, codexConfig } from "../../src/agent/codex_agent.ts";
import { readCodexTranscript } from "../../src/agent/codex_transcript.ts";
import { INSTRUCTION_FILE } from "../../src/agent/_installed_run.ts";
import { UsageError } from "../../src/core/errors.ts";
import { SplitMix64 } from "../../src/core/rng.ts";
import { shellQuote } from "../../src/core/shell_quote.ts";
import { GATEWAY_PORT } from "../../src/gateway/sidecar.ts";
import type { Kit } from "../../src/kit/kit_store.ts";
import {
  type ExecHandler,
  type ExecRequest,
  MemorySandbox,
} from "../../src/engine/memory_sandbox.ts";
import { AGENT_USER, type UnpackedExecResult } from "../../src/engine/sandbox.ts";
import type { CatalogueEvent } from "../../src/store/event_catalogue.ts";
import { EVENT } from "../../src/store/event_catalogue.ts";
import { loadTask } from "../../src/task/load_task.ts";
import type { Task } from "../../src/task/task.ts";
import { PROJECT_ROOT } from "../_verdict.ts";

const CLAUDE_KIT: Kit = {
  agent: "claude-code",
  version: "2.1.332",
  folder: "/kits/claude-code/2.1.332",
  binary: "claude",
  sha256: "0".repeat(64),
  size: 1,
  interpreter: "/lib64/ld-linux-x86-64.so.2",
  packages: [],
  companions: [],
};

const CODEX_KIT: Kit = {
  agent: "codex",
  version: "0.171.0",
  folder: "/kits/codex/0.171.0",
  binary: "codex",
  sha256: "0".repeat(64),
  size: 1,
  interpreter: null,
  packages: [],
  companions: [
    { name: "codex-code-mode-host", sha256: "0".repeat(64), size: 1 },
    { name: "path/rg", sha256: "0".repeat(64), size: 1 },
  ],
};

const CLAUDE_STDOUT = await Deno.readTextFile(
  join(PROJECT_ROOT, "tests/fixtures/transcripts/claude-code.stdout.jsonl"),
);
const CODEX_STDOUT = await Deno.readTextFile(
  join(PROJECT_ROOT, "tests/fixtures/transcripts/codex.stdout.jsonl"),
);

let taskOnce: Task | undefined;

interface Ran {
  outcome: AgentOutcome;
  events: CatalogueEvent[];
  /** The agent user's execs. */
  requests: ExecRequest[];
  /** Root's execs (making the agent's home). */
  asRoot: ExecRequest[];
  task: Task;
}

/** Runs `agent` once in a memory container whose every exec `answer` answers. */
async function runAgent(
  agent: InstalledAgent,
  answer: Partial<UnpackedExecResult> | (() => Partial<UnpackedExecResult>),
  controller = new AbortController(),
  events: CatalogueEvent[] = [],
  clock: { faketime?: string; start?: number } = {},
): Promise<Ran> {
  taskOnce ??= await loadTask(join(PROJECT_ROOT, "tasks/fix-slugify"));
  const task = taskOnce;
  const requests: ExecRequest[] = [];
  const asRoot: ExecRequest[] = [];
  const exec: ExecHandler = (request) => {
    if (request.user === "0:0") {
      asRoot.push(request);
      return { stdout: clock.faketime === undefined ? "" : `${clock.faketime}\n` };
    }
    requests.push(request);
    return typeof answer === "function" ? answer() : answer;
  };
  const sandbox = new MemorySandbox({ exec });
  const container = await sandbox.start({
    image: task.manifest.image,
    workdir: task.manifest.workdir,
    network: "none",
    labels: {},
    user: AGENT_USER,
    mounts: agent.mounts,
  });
  const context: AgentContext = {
    task,
    session: "s1",
    container,
    record: (recorded) => events.push(...recorded),
    storeBlob: () => "0".repeat(64),
    rng: new SplitMix64(1),
    timeoutMs: 12_345,
    resumed: false,
    signal: controller.signal,
    clockStart: clock.start,
  };
  try {
    const outcome = await agent.run(context);
    return { outcome, events, requests, asRoot, task };
  } finally {
    await container.remove();
  }
}

Deno.test("Claude Code runs the kit's binary headless, as the agent user, with its own home and no extra traffic", async () => {
  const agent = claudeCodeAgent(CLAUDE_KIT, "scripted");
  assert.equal(agent.name, "claude-code@2.1.332");
  assert.deepEqual(agent.mounts, [{
    source: "/kits/claude-code/2.1.332",
    target: "/verdict/kit",
    readOnly: true,
  }]);
  assert.equal(agent.probe?.command, "/verdict/kit/claude --version");
  assert.match(agent.probe!.needs, /\/lib64\/ld-linux-x86-64\.so\.2/);
  const { requests, asRoot, task } = await runAgent(agent, { stdout: CLAUDE_STDOUT });
  assert.equal(requests.length, 1, "one exec as the agent");
  assert.equal(asRoot.length, 1, "one exec as root readies the container");
  const ready = asRoot[0].script;
  assert(ready.includes(`mkdir -p '/tmp/verdict' '${CLAUDE_CODE_HOME}'`), ready);
  assert(ready.includes(`chmod 1777 '/tmp/verdict' '${CLAUDE_CODE_HOME}'`), ready);
  assert(ready.includes(`cat > ${shellQuote(INSTRUCTION_FILE)}`), ready);
  assert.equal(new TextDecoder().decode(asRoot[0].options.stdin), task.instruction);
  assert.match(ready, /touch -c -t 202311142213\.20 \/ \/\.dockerenv \/etc \/dev /);
  const [{ script, options, user, workdir }] = requests;
  assert.equal(user, AGENT_USER, "never root: Claude Code refuses to bypass permissions as root");
  assert.equal(workdir, task.manifest.workdir);
  assert.equal(options.timeoutMs, 12_345, "the task's deadline");
  assert.equal(options.stdin, undefined, "the instruction is in its file, root's");
  const line = "exec /verdict/kit/claude -p " +
    "--dangerously-skip-permissions --output-format stream-json --verbose";
  assert(
    script.includes(`exec sh -c ${shellQuote(line)} <${shellQuote(INSTRUCTION_FILE)}`),
    script,
  );
  assert.deepEqual(options.env, {
    VERDICT_INSTRUCTION_FILE: INSTRUCTION_FILE,
    HOME: CLAUDE_CODE_HOME,
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    CLAUDE_CODE_MAX_RETRIES: "2",
    IS_SANDBOX: "1",
  });
  assert(!script.includes("--model"), "the scripted model answers Claude Code's own default");
});

Deno.test("Claude Code is told the model --model anthropic:NAME names, and refuses an OpenAI one", async () => {
  const { requests } = await runAgent(
    claudeCodeAgent(CLAUDE_KIT, "anthropic:claude-sonnet-4-5"),
    { stdout: CLAUDE_STDOUT },
  );
  const line = "exec /verdict/kit/claude -p " +
    "--dangerously-skip-permissions --output-format stream-json --verbose --model 'claude-sonnet-4-5'";
  assert(
    requests[0].script.includes(`exec sh -c ${shellQuote(line)} <${shellQuote(INSTRUCTION_FILE)}`),
    requests[0].script,
  );
  assert.throws(
    () => claudeCodeAgent(CLAUDE_KIT, "openai:gpt-5"),
    (error: Error) =>
      error instanceof UsageError &&
      /--agent claude-code speaks anthropic's API, so --model openai:gpt-5 cannot answer it/
        .test(error.message),
  );
});

Deno.test("Codex runs the kit's binary with its own CODEX_HOME and a config that names the gateway", async () => {
  const agent = codexAgent(CODEX_KIT, "openai:gpt-5-mini");
  assert.equal(agent.name, "codex@0.171.0");
  assert.equal(agent.probe, undefined, "a static binary runs in any image");
  const { requests } = await runAgent(agent, { stdout: CODEX_STDOUT });
  const [{ script, options, user }] = requests;
  assert.equal(user, AGENT_USER);
  const line =
    'PATH="/verdict/kit/path:$PATH" exec /verdict/kit/codex exec --skip-git-repo-check ' +
    "--dangerously-bypass-approvals-and-sandbox --json -";
  assert(
    script.includes(`exec sh -c ${shellQuote(line)} <${shellQuote(INSTRUCTION_FILE)}`),
    script,
  );
  assert.deepEqual(options.env, { VERDICT_INSTRUCTION_FILE: INSTRUCTION_FILE, CODEX_HOME });
  const config = codexConfig("gpt-5-mini");
  assert(
    script.includes(`printf '%s' ${shellQuote(config)} > '${CODEX_HOME}/config.toml'`),
    script,
  );
  assert.match(config, /^model = "gpt-5-mini"$/m);
  assert.match(config, /^model_provider = "verdict"$/m);
  assert.match(config, new RegExp(`^base_url = "http://127\\.0\\.0\\.1:${GATEWAY_PORT}/v1"$`, "m"));
  assert.match(config, /^wire_api = "responses"$/m);
  assert.match(config, /^unbounded_connection_retries = false$/m);
  // Every line is TOML a reader would take: a table, an empty line or `key = value`.
  for (const entry of config.split("\n")) {
    assert.match(entry, /^(\[[a-z_.]+\]|[a-z_]+ = ("[^"]*"|\d+|true|false))?$/, entry);
  }
  assert.throws(
    () => codexAgent(CODEX_KIT, "anthropic:claude-sonnet-4-5"),
    (error: Error) =>
      error instanceof UsageError && /--agent codex speaks openai's API/.test(error.message),
  );
});

for (
  const [name, agent, stdout, read] of [
    [
      "Claude Code",
      claudeCodeAgent(CLAUDE_KIT, "scripted"),
      CLAUDE_STDOUT,
      readClaudeCodeTranscript,
    ],
    ["Codex", codexAgent(CODEX_KIT, "scripted"), CODEX_STDOUT, readCodexTranscript],
  ] as const
) {
  Deno.test(`${name}'s run is recorded as agent.cmd then agent.transcript, its tool calls counted`, async () => {
    const { outcome, events } = await runAgent(agent, { stdout, stderr: "a warning\n" });
    assert.deepEqual(events.map((recorded) => recorded.kind), [
      EVENT.agentCmd,
      EVENT.agentTranscript,
    ]);
    const [cmd, transcript] = events;
    assert(cmd.kind === EVENT.agentCmd && transcript.kind === EVENT.agentTranscript);
    assert.equal(cmd.payload.exit_code, 0);
    assert.equal(cmd.payload.timed_out, false);
    assert.equal(cmd.payload.stdout, stdout, "the CLI's own transcript stays whole in the record");
    assert.equal(cmd.payload.stderr, "a warning\n");
    assert.match(cmd.payload.command, name === "Codex" ? /^codex exec / : /^claude -p /);
    const expected = read(stdout);
    assert.deepEqual(transcript.payload, { agent: agent.name.split("@")[0], ...expected });
    const calls = expected.steps.filter((step) => step.type === "tool_call").length;
    assert(calls > 0);
    assert.equal(outcome.stopReason, "completed");
    assert.equal(outcome.counters.toolCalls, calls);
    assert.equal(outcome.counters.finished, true);
    assert.equal(outcome.detail, undefined);
  });
}

Deno.test("a CLI that exits non-zero ends in error, named with its last message", async () => {
  const failed = [
    JSON.stringify({
      type: "assistant",
      message: { content: [{ type: "text", text: "Working on it." }] },
    }),
    JSON.stringify({
      type: "assistant",
      is_api_error_message: true,
      message: { content: [{ type: "text", text: "\nAPI Error: 500\n  upstream   failed\n" }] },
    }),
    JSON.stringify({ type: "assistant", message: { content: [{ type: "text", text: " \n" }] } }),
  ].join("\n");
  const { outcome, events } = await runAgent(claudeCodeAgent(CLAUDE_KIT, "scripted"), {
    exitCode: 1,
    stdout: failed,
  });
  assert.equal(outcome.stopReason, "error");
  assert.equal(outcome.detail, "claude-code exited 1: API Error: 500 upstream failed");
  assert.equal(outcome.counters.finished, false);
  assert.deepEqual(events.map((recorded) => recorded.kind), [
    EVENT.agentCmd,
    EVENT.agentTranscript,
  ]);
  const turnFailed = await runAgent(codexAgent(CODEX_KIT, "scripted"), {
    exitCode: 1,
    stdout: [
      { type: "item.completed", item: { id: "i1", type: "agent_message", text: "Looking." } },
      { type: "turn.failed", error: { message: "unexpected status 429: budget spent" } },
    ].map((line) => JSON.stringify(line)).join("\n"),
  });
  assert.equal(
    turnFailed.outcome.detail,
    "codex exited 1: turn failed: unexpected status 429: budget spent",
  );
  const silent = await runAgent(codexAgent(CODEX_KIT, "scripted"), { exitCode: 2, stdout: "" });
  assert.equal(silent.outcome.stopReason, "error");
  assert.equal(silent.outcome.detail, "codex exited 2", "nothing said, nothing quoted");
});

Deno.test("a CLI killed at the deadline ends in timeout, its transcript so far still read", async () => {
  const { outcome, events } = await runAgent(codexAgent(CODEX_KIT, "scripted"), {
    exitCode: 137,
    timedOut: true,
    stdout: CODEX_STDOUT.split("\n").slice(0, 6).join("\n"),
  });
  assert.equal(outcome.stopReason, "timeout");
  assert.equal(outcome.detail, undefined);
  assert.equal(outcome.counters.finished, false);
  const transcript = events[1];
  assert(transcript.kind === EVENT.agentTranscript);
  assert(transcript.payload.steps.length > 0);
  assert.equal(
    outcome.counters.toolCalls,
    transcript.payload.steps.filter((step) => step.type === "tool_call").length,
  );
});

Deno.test("an interrupted CLI throws the run's abort reason and records nothing", async () => {
  const controller = new AbortController();
  const reason = new Error("interrupted by SIGINT");
  const events: CatalogueEvent[] = [];
  await assert.rejects(
    () =>
      runAgent(
        claudeCodeAgent(CLAUDE_KIT, "scripted"),
        () => {
          controller.abort(reason);
          return { stdout: CLAUDE_STDOUT };
        },
        controller,
        events,
      ),
    (error) => error === reason,
  );
  assert.deepEqual(events, []);
});

Deno.test("where the image has libfaketime, the CLI's commands (Codex: the CLI too) start at the run's start and the record says so", async () => {
  const library = "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1";
  const start = Date.UTC(2026, 11, 6, 21, 14, 22, 500);
  const clock = "'FAKETIME=@1796591662' 'FAKETIME_FMT=%s' 'FAKETIME_DONT_FAKE_MONOTONIC=0' " +
    "'FAKETIME_FLSHM=1' 'NO_FAKE_STAT=1' ";
  const agentCmd = (ran: Ran) =>
    ran.events.find((event) => event.kind === EVENT.agentCmd)!.payload as Record<string, unknown>;

  const claude = await runAgent(
    claudeCodeAgent(CLAUDE_KIT, "scripted"),
    {
      stdout: CLAUDE_STDOUT,
    },
    undefined,
    [],
    { faketime: library, start },
  );
  const commandsOnly = "exec env -u LD_PRELOAD -u FAKETIME_SHARED " +
    `'CLAUDE_ENV_FILE=/tmp/verdict/clock.sh' ${clock}/verdict/kit/claude -p`;
  const claudeScript = claude.requests[0].script;
  assert(claudeScript.includes(shellQuote(commandsOnly).slice(0, -1)), claudeScript);
  assert.match(
    claude.asRoot[0].script,
    /echo "export LD_PRELOAD=\$lib" > \/tmp\/verdict\/clock\.sh/,
  );
  assert.equal(agentCmd(claude).clock_start, "2026-12-06T21:14:22.500Z");
  assert.deepEqual(agentCmd(claude).replay_masks, [
    "claude-code-user-id",
    "os-version",
    "todays-date",
  ]);

  const codex = await runAgent(
    codexAgent(CODEX_KIT, "scripted"),
    { stdout: CODEX_STDOUT },
    undefined,
    [],
    {
      faketime: library,
      start,
    },
  );
  const wholeProgram =
    `exec env -u FAKETIME_SHARED 'LD_PRELOAD=${library}' ${clock}/verdict/kit/codex`;
  assert(
    codex.requests[0].script.includes(shellQuote(wholeProgram).slice(1, -1)),
    codex.requests[0].script,
  );
  assert.equal(agentCmd(codex).clock_start, "2026-12-06T21:14:22.500Z");

  const own = await runAgent(
    claudeCodeAgent(CLAUDE_KIT, "scripted"),
    { stdout: CLAUDE_STDOUT },
    undefined,
    [],
    {
      start,
    },
  );
  assert(!own.requests[0].script.includes("FAKETIME"), own.requests[0].script);
  assert.equal(
    agentCmd(own).clock_start,
    null,
    "no libfaketime in the image: the container's clock",
  );
});

Deno.test("what an installed agent runs is part of its identity: a kit's checksums, a cmd agent's files; a bare command has none", async () => {
  const kit = await claudeCodeAgent(CLAUDE_KIT, "scripted").digest();
  assert.match(kit ?? "", /^[0-9a-f]{64}$/);
  assert.equal(await claudeCodeAgent(CLAUDE_KIT, "anthropic:claude-sonnet-4-5").digest(), kit);
  assert.notEqual(
    await claudeCodeAgent({ ...CLAUDE_KIT, sha256: "1".repeat(64) }, "scripted").digest(),
    kit,
  );
  assert.notEqual(
    await codexAgent({ ...CODEX_KIT, companions: CODEX_KIT.companions.slice(1) }, "scripted")
      .digest(),
    await codexAgent(CODEX_KIT, "scripted").digest(),
  );
  assert.equal(await cmdAgent("true", null).digest(), null);
});
