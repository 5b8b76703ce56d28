import assert from "node:assert/strict";
import { readCodexTranscript } from "../../src/agent/codex_transcript.ts";
import { assertRecordable, assertSurvivesDamage } from "./_transcript_fuzz.ts";

const SAMPLE = "tests/fixtures/transcripts/codex.stdout.jsonl";

const lines = (...values: unknown[]) => values.map((value) => JSON.stringify(value)).join("\n");

Deno.test("a real Codex run reads into its messages, its commands and their outputs and exit codes", async () => {
  const transcript = readCodexTranscript(await Deno.readTextFile(SAMPLE));
  assertRecordable(transcript);
  assert.equal(transcript.unread_lines, 0);
  assert.equal(transcript.duration_ms, null, "Codex reports no duration");
  const calls = transcript.steps.filter((step) => step.type === "tool_call");
  assert.deepEqual(calls.map((call) => call.id), [
    "item_2",
    "item_4",
    "item_5",
    "item_7",
    "item_8",
    "item_10",
  ]);
  assert(calls.every((call) => call.name === "exec_command"));
  assert.equal(calls[0].command, `/bin/sh -lc "find '.' -maxdepth 3 | LC_ALL=C sort"`);
  assert.deepEqual(JSON.parse(calls[0].input), { command: calls[0].command });
  const results = transcript.steps.filter((step) => step.type === "tool_result");
  assert.equal(results.at(-1)?.output, "visible tests exit 0\n");
  assert(results.every((result) => result.exit_code === 0 && !result.is_error));
  const said = transcript.steps.filter((step) => step.type === "message").map((step) => step.text);
  assert.match(said[0], /^error: Model metadata for `gpt-5-codex` not found/);
  assert.equal(said.at(-1), "The change is in place and the tests I could run pass.");
  const callIndex = transcript.steps.findIndex((step) => step.type === "tool_call");
  assert.equal(transcript.steps[callIndex + 1].type, "tool_result", "each result follows its call");
});

Deno.test("a failing command, a file change, reasoning, and a failed turn", () => {
  const transcript = readCodexTranscript(lines(
    { type: "item.completed", item: { id: "r", type: "reasoning", text: "thinking" } },
    {
      type: "item.completed",
      item: {
        id: "c",
        type: "command_execution",
        command: "pytest",
        aggregated_output: "1 failed\n",
        exit_code: 1,
        status: "failed",
      },
    },
    {
      type: "item.completed",
      item: {
        id: "f",
        type: "file_change",
        changes: [{ path: "a.py", kind: "update" }, { path: "b.py", kind: "add" }],
        status: "completed",
      },
    },
    { type: "turn.failed", error: { message: "stream disconnected" } },
    { type: "error", message: "Reconnecting... 1/1" },
  ));
  assert.deepEqual(transcript.steps, [
    {
      type: "tool_call",
      id: "c",
      name: "exec_command",
      command: "pytest",
      input: '{"command":"pytest"}',
    },
    { type: "tool_result", id: "c", output: "1 failed\n", is_error: true, exit_code: 1 },
    {
      type: "tool_call",
      id: "f",
      name: "apply_patch",
      command: null,
      input: '[{"path":"a.py","kind":"update"},{"path":"b.py","kind":"add"}]',
    },
    {
      type: "tool_result",
      id: "f",
      output: "update a.py\nadd b.py",
      is_error: false,
      exit_code: null,
    },
    { type: "message", text: "turn failed: stream disconnected" },
    { type: "message", text: "error: Reconnecting... 1/1" },
  ]);
  assert.equal(transcript.unread_lines, 0);
});

Deno.test("unknown events and item types are counted unread, and damaged lines never throw", async () => {
  const transcript = readCodexTranscript(
    [
      "2026-12-01T00:00:00 WARN codex: a log line",
      lines({ type: "item.completed", item: { id: "w", type: "web_search", query: "x" } }),
      lines({ type: "item.completed", item: "not an object" }),
      lines({ type: "session.configured" }),
      '{"type":"item.completed","item":{"id":"item_1","type":"agent_mess',
    ].join("\n"),
  );
  assert.deepEqual(transcript.steps, []);
  assert.equal(transcript.unread_lines, 5);
  assertSurvivesDamage(readCodexTranscript, await Deno.readTextFile(SAMPLE));
});
