import assert from "node:assert/strict";
import { readClaudeCodeTranscript } from "../../src/agent/claude_code_transcript.ts";
import { readCodexTranscript } from "../../src/agent/codex_transcript.ts";
import type { GatewayAnswer } from "../../src/gateway/gateway.ts";
import { messages } from "../../src/gateway/messages.ts";
import { recordExchange } from "../../src/gateway/recording.ts";
import { responses } from "../../src/gateway/responses.ts";
import type { ModelResponse, ToolCall } from "../../src/model/model.ts";
import { SCRIPTED_PRICE } from "../../src/model/prices.ts";
import { UNMATCHED_CALLS } from "../../src/report/_transcript_steps.ts";
import { readTrajectory, type Trajectory } from "../../src/report/trajectory.ts";
import { trajectoryText } from "../../src/report/trajectory_text.ts";
import { type CatalogueEvent, EVENT, event } from "../../src/store/event_catalogue.ts";
import { openStore } from "../../src/store/store.ts";
import { gatewayCall } from "../gateway/_calls.ts";

const lines = (...values: unknown[]) => values.map((value) => JSON.stringify(value)).join("\n");

/** The trajectory of a session recorded with `events`. */
function trajectoryOf(events: CatalogueEvent[]): Trajectory {
  const store = openStore(":memory:");
  using _closed = { [Symbol.dispose]: () => store.close() };
  store.runs.create({ id: "r", config: {}, createdAt: 0 });
  store.runs.createSession({ id: "s", run: "r", task: "t", repeat: 0 });
  if (events.length > 0) store.events.append("s", events);
  return readTrajectory(store, { id: "s", task: "t", repeat: 0 });
}

/** A streamed exchange answered as the gateway answers: `content` and `toolCalls`, in `format`. */
function streamedExchange(
  number: number,
  format: "messages" | "responses",
  content: string,
  toolCalls: ToolCall[],
): CatalogueEvent[] {
  const call = gatewayCall(number, format, { model: "m", stream: true }, true);
  const response: ModelResponse = {
    content,
    toolCalls,
    finish: toolCalls.length > 0 ? "tool_calls" : "stop",
    usage: { input: 100, cachedInput: 0, output: 10 },
  };
  const answer: GatewayAnswer = (format === "messages" ? messages : responses).render(
    call,
    response,
  );
  return recordExchange(call, answer, SCRIPTED_PRICE);
}

const claudeCodeStdout = lines(
  { type: "system", subtype: "init" },
  { type: "assistant", message: { id: "m1", content: [{ type: "text", text: "Let me look." }] } },
  {
    type: "assistant",
    message: {
      id: "m1",
      content: [{ type: "tool_use", id: "toolu_1", name: "Bash", input: { command: "ls -a" } }],
    },
  },
  {
    type: "user",
    message: {
      content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "README.md\nsrc" }],
    },
  },
  { type: "assistant", message: { id: "m2", content: [{ type: "text", text: "Done." }] } },
  { type: "result", subtype: "success", is_error: false, duration_ms: 900 },
);

Deno.test("Claude Code: each call of a streamed answer shows its command and result, matched by id", () => {
  const trajectory = trajectoryOf([
    ...streamedExchange(1, "messages", "Let me look.", [
      { id: "toolu_1", name: "Bash", arguments: '{"command":"ls -a"}' },
    ]),
    ...streamedExchange(2, "messages", "Done.", []),
    event(EVENT.agentTranscript, {
      agent: "claude-code",
      ...readClaudeCodeTranscript(claudeCodeStdout),
    }),
  ]);
  assert.deepEqual(trajectory.steps.map((step) => step.step), [1, 2]);
  assert.deepEqual(trajectory.steps[0].calls, [{
    id: "toolu_1",
    tool: "Bash",
    arguments: '{"command":"ls -a"}',
    command: "ls -a",
    result: { content: "README.md\nsrc", is_error: false },
    by_agent: true,
  }]);
  const text = trajectoryText(trajectory);
  assert.match(
    text,
    /step 1 \(100 in, 10 out, \$[0-9.]+\): messages call \(streamed\) for m: HTTP 200\nLet me look\./,
  );
  const call = [
    '  → Bash {"command":"ls -a"}  [run by the agent]',
    "      $ ls -a",
    "      README.md",
    "      src",
  ].join("\n");
  assert(text.includes(call), text);
  assert.match(text, /step 2 .*HTTP 200\nDone\./);
});

Deno.test("Codex: its commands are matched to the streamed Responses calls in order, with exit codes", () => {
  const exec = (id: string, cmd: string) => ({
    id,
    name: "exec_command",
    arguments: JSON.stringify({ cmd, workdir: "/workspace" }),
  });
  const stdout = lines(
    { type: "thread.started", thread_id: "x" },
    { type: "turn.started" },
    { type: "item.completed", item: { id: "item_0", type: "agent_message", text: "Running." } },
    ...[["item_1", "ls", "a.py\n", 0], ["item_2", "pytest -q", "1 failed\n", 1]].map((
      [id, command, output, code],
    ) => ({
      type: "item.completed",
      item: {
        id,
        type: "command_execution",
        command: `/bin/sh -lc '${command}'`,
        aggregated_output: output,
        exit_code: code,
        status: code === 0 ? "completed" : "failed",
      },
    })),
    { type: "turn.completed", usage: { input_tokens: 1, output_tokens: 1 } },
  );
  const trajectory = trajectoryOf([
    ...streamedExchange(1, "responses", "Running.", [
      exec("call_a", "ls"),
      exec("call_b", "pytest -q"),
    ]),
    event(EVENT.agentTranscript, { agent: "codex", ...readCodexTranscript(stdout) }),
  ]);
  const [ls, pytest] = trajectory.steps[0].calls;
  assert.equal(ls.id, "call_a", "the gateway's call, its id the model's");
  assert.equal(ls.command, "/bin/sh -lc 'ls'");
  assert.deepEqual(ls.result, { content: "a.py\n", is_error: false, exit_code: 0 });
  assert.deepEqual(pytest.result, { content: "1 failed\n", is_error: true, exit_code: 1 });
  const text = trajectoryText(trajectory);
  assert.match(text, /responses call \(streamed\) for m: HTTP 200\nRunning\./);
  assert.match(text, /\$ \/bin\/sh -lc 'pytest -q'\n +1 failed\n +\n +\(error, exit code 1\)/);
});

Deno.test("a transcript with no gateway steps to attach to is shown as steps of its own", async () => {
  const stdout = await Deno.readTextFile("tests/fixtures/transcripts/codex.stdout.jsonl");
  const trajectory = trajectoryOf([
    event(EVENT.agentTranscript, { agent: "codex", ...readCodexTranscript(stdout) }),
  ]);
  assert.deepEqual(
    trajectory.steps.map((step) => [step.content.split("\n").at(-1), step.calls.length]),
    [
      ["Let me look at the workspace.", 1],
      ["Reading the code I need to understand.", 1],
      ["", 1],
      ["Writing the fix.", 1],
      ["", 1],
      ["Running the tests.", 1],
      ["The change is in place and the tests I could run pass.", 0],
    ],
    "Codex reports each command with its result: each call after a result begins a step",
  );
  const text = trajectoryText(trajectory);
  assert.match(
    text,
    /→ exec_command .*\[run by the agent\]\n +\$ \/bin\/sh -lc "find '\.' -maxdepth 3 \| LC_ALL=C sort"\n +\.\n +\.\/README\.md/,
  );
  assert.match(text, /visible tests exit 0/);

  const claude = await Deno.readTextFile("tests/fixtures/transcripts/claude-code.stdout.jsonl");
  const parallel = trajectoryOf([
    event(EVENT.agentTranscript, { agent: "claude-code", ...readClaudeCodeTranscript(claude) }),
  ]);
  assert.deepEqual(parallel.steps.map((step) => step.calls.map((call) => call.id)), [
    ["call_1"],
    ["call_2", "call_3", "call_4"],
    ["call_5", "call_6", "call_7"],
    ["call_8"],
    [],
  ]);
  assert.match(parallel.steps[1].calls[2].result?.content ?? "", /^"""Plain-text report\."""/);
});

Deno.test("a transcript call no gateway answer asked for is still shown, after the gateway's steps", () => {
  const trajectory = trajectoryOf([
    ...streamedExchange(1, "messages", "Done.", []),
    event(EVENT.agentTranscript, {
      agent: "claude-code",
      ...readClaudeCodeTranscript(claudeCodeStdout),
    }),
  ]);
  assert.equal(trajectory.steps.length, 2);
  assert.equal(trajectory.steps[1].step, 2);
  assert.equal(trajectory.steps[1].content, UNMATCHED_CALLS);
  assert.equal(trajectory.steps[1].calls[0].command, "ls -a");
  assert.equal(trajectory.steps[1].calls[0].result?.content, "README.md\nsrc");
});
