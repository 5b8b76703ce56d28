import assert from "node:assert/strict";
import { readClaudeCodeTranscript } from "../../src/agent/claude_code_transcript.ts";
import { assertRecordable, assertSurvivesDamage } from "./_transcript_fuzz.ts";

const SAMPLE = "tests/fixtures/transcripts/claude-code.stdout.jsonl";

const lines = (...values: unknown[]) => values.map((value) => JSON.stringify(value)).join("\n");

Deno.test("a real Claude Code run reads into its messages, its calls with their commands, and their results", async () => {
  const transcript = readClaudeCodeTranscript(await Deno.readTextFile(SAMPLE));
  assertRecordable(transcript);
  assert.equal(transcript.unread_lines, 0);
  assert.equal(transcript.duration_ms, 2707);
  const calls = transcript.steps.filter((step) => step.type === "tool_call");
  assert.deepEqual(calls.map((call) => call.id), [1, 2, 3, 4, 5, 6, 7, 8].map((n) => `call_${n}`));
  assert.equal(calls[0].command, "find '.' -maxdepth 3 | LC_ALL=C sort");
  assert.equal(calls[1].command, "cat -- 'README.md'");
  assert.equal(calls[4].name, "Write");
  assert.equal(calls[4].command, null, "a Write runs no shell command");
  assert.equal(JSON.parse(calls[4].input).file_path, "/workspace/README.md");
  const results = transcript.steps.filter((step) => step.type === "tool_result");
  assert.deepEqual(
    results.map((result) => result.id),
    ["call_1", "call_2", "call_4", "call_3", "call_5", "call_6", "call_7", "call_8"],
    "results keep the order Claude Code reported them in",
  );
  assert.equal(results.at(-1)?.output, "visible tests exit 0");
  assert(results.every((result) => !result.is_error && result.exit_code === null));
  const said = transcript.steps.filter((step) => step.type === "message").map((step) => step.text);
  assert.deepEqual(said, [
    "Let me look at the workspace.",
    "Reading the code I need to understand.",
    "Writing the fix.",
    "Running the tests.",
    "The change is in place and the tests I could run pass.",
  ]);
});

Deno.test("a failed tool, a list of text blocks as a result, thinking and a plain user message", () => {
  const transcript = readClaudeCodeTranscript(lines(
    {
      type: "assistant",
      message: {
        content: [
          { type: "thinking", thinking: "hmm" },
          { type: "tool_use", id: "t1", name: "Bash", input: { command: "false" } },
        ],
      },
    },
    {
      type: "user",
      message: {
        content: [{
          type: "tool_result",
          tool_use_id: "t1",
          is_error: true,
          content: [{ type: "text", text: "Exit code 1" }, { type: "image" }, {
            type: "text",
            text: "boom",
          }],
        }],
      },
    },
    { type: "user", message: { role: "user", content: "a prompt" } },
  ));
  assert.deepEqual(transcript.steps, [
    { type: "tool_call", id: "t1", name: "Bash", command: "false", input: '{"command":"false"}' },
    { type: "tool_result", id: "t1", output: "Exit code 1\nboom", is_error: true, exit_code: null },
  ]);
  assert.equal(transcript.unread_lines, 0);
  assert.equal(transcript.duration_ms, null, "no result line: no duration");
});

Deno.test("an API error is a message, and an error result still gives its duration and says what failed", () => {
  const apiError = "API Error: 500 upstream failed";
  const transcript = readClaudeCodeTranscript(lines(
    { type: "system", subtype: "init", tools: ["Bash"] },
    {
      type: "assistant",
      is_api_error_message: true,
      message: { content: [{ type: "text", text: apiError }] },
    },
    { type: "result", subtype: "success", is_error: true, result: apiError, duration_ms: 812 },
  ));
  assert.deepEqual(transcript.steps, [{ type: "message", text: apiError }], "said once");
  assert.equal(transcript.duration_ms, 812);

  const maxTurns = readClaudeCodeTranscript(lines(
    { type: "result", subtype: "error_max_turns", is_error: true, duration_ms: 5 },
    { type: "result", subtype: "error_during_execution", errors: ["disk full"], duration_ms: 9 },
  ));
  assert.deepEqual(maxTurns.steps, [
    { type: "message", text: "Claude Code ended with an error (error_max_turns)" },
    { type: "message", text: "disk full" },
  ]);
  assert.equal(maxTurns.duration_ms, 9, "the last result's duration");
});

Deno.test("lines that are not JSON or not a known type are counted unread, never thrown on", async () => {
  const transcript = readClaudeCodeTranscript(
    [
      "Warning: something printed by a wrapper",
      lines({ type: "stream_event", event: {} }),
      lines({ type: "assistant", message: { content: "not a list" } }),
      '{"type":"assistant","message":{"content":[{"type":"te',
      lines({ type: "assistant", message: { content: [{ type: "text", text: "ok" }] } }),
    ].join("\n"),
  );
  assert.equal(transcript.unread_lines, 4);
  assert.deepEqual(transcript.steps, [{ type: "message", text: "ok" }]);
  assertSurvivesDamage(readClaudeCodeTranscript, await Deno.readTextFile(SAMPLE));
});
