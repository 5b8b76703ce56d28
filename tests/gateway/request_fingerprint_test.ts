/**
 * What replay ignores when it holds a CLI's request to the record: the ids, dates and machine
 * facts Claude Code and Codex CLI write afresh each run, and the order in which the results of
 * parallel tool calls come back; and what it still holds them to.
 */
import assert from "node:assert/strict";
import { requestFingerprint } from "../../src/gateway/request_fingerprint.ts";

const same = (format: Parameters<typeof requestFingerprint>[0], a: unknown, b: unknown) =>
  requestFingerprint(format, JSON.stringify(a)) === requestFingerprint(format, JSON.stringify(b));

Deno.test("Claude Code's date, kernel version and session id do not tell two runs apart", () => {
  const request = (date: string, kernel: string, session: string) => ({
    model: "claude-opus-5-5",
    system: [{
      type: "text",
      text: ` - Platform: linux\n - OS Version: Linux ${kernel}\n\nToday's date is ${date}.`,
    }],
    metadata: { user_id: JSON.stringify({ session_id: session }) },
    messages: [{ role: "user", content: "Fix it." }],
  });
  assert(
    same("messages", request("2026-12-01", "6.18.44", "a"), request("2027-01-09", "6.1.0", "b")),
  );
  const other = request("2026-12-01", "6.18.44", "a");
  other.messages[0].content = "Fix it now.";
  assert(
    !same("messages", request("2026-12-01", "6.18.44", "a"), other),
    "the conversation counts",
  );
});

Deno.test("the results of parallel tool calls compare in the order of their call ids", () => {
  const results = (ids: string[]) => ({
    model: "m",
    messages: [
      { role: "user", content: "Read both." },
      { role: "assistant", content: ids.map((id) => ({ type: "tool_use", id, name: "Bash" })) },
      {
        role: "user",
        content: ids.map((id) => ({ type: "tool_result", tool_use_id: id, content: `out ${id}` })),
      },
    ],
  });
  const called = results(["call_1", "call_2"]);
  const answered = results(["call_2", "call_1"]);
  answered.messages[1] = called.messages[1];
  assert(same("messages", called, answered));
  // Claude Code marks the newest block for caching: the mark follows the order results came in.
  const marked = (request: ReturnType<typeof results>) => {
    const blocks = request.messages[2].content as Record<string, unknown>[];
    blocks[blocks.length - 1].cache_control = { type: "ephemeral" };
    return request;
  };
  assert(same("messages", marked(results(["call_1", "call_2"])), marked(answered)));
  const wrong = results(["call_1", "call_2"]);
  (wrong.messages[2].content as { content: string }[])[0].content = "out call_2";
  assert(!same("messages", called, wrong), "a result given to the wrong call counts");

  const outputs = (order: string[]) => ({
    model: "m",
    input: [
      { type: "function_call", call_id: "call_1", name: "exec_command", arguments: "{}" },
      { type: "function_call", call_id: "call_2", name: "exec_command", arguments: "{}" },
      ...order.map((id) => ({ type: "function_call_output", call_id: id, output: id })),
    ],
  });
  assert(same("responses", outputs(["call_1", "call_2"]), outputs(["call_2", "call_1"])));
  const tools = (order: string[]) => ({
    model: "m",
    messages: order.map((id) => ({ role: "tool", tool_call_id: id, content: id })),
  });
  assert(same("chat_completions", tools(["a", "b"]), tools(["b", "a"])));
});

Deno.test("Codex CLI's turn metadata, message ids and current date do not tell two runs apart", () => {
  const request = (turn: string, message: string, date: string) => ({
    model: "gpt-5-codex",
    client_metadata: { turn_id: turn, session_id: turn },
    prompt_cache_key: turn,
    input: [
      {
        type: "message",
        id: message,
        role: "user",
        content: [{
          type: "input_text",
          text:
            `<environment_context>\n  <current_date>${date}</current_date>\n</environment_context>`,
        }],
      },
    ],
  });
  assert(
    same("responses", request("t1", "msg_1", "2026-12-01"), request("t2", "msg_2", "2027-02-03")),
  );
  const other = request("t1", "msg_1", "2026-12-01");
  other.input[0].role = "developer";
  assert(!same("responses", request("t1", "msg_1", "2026-12-01"), other));
});

Deno.test("Codex CLI's random chunk ids and measured wall times in a command's output do not tell two runs apart", () => {
  const output = (chunk: string, wall: string, text: string) => ({
    model: "m",
    input: [{
      type: "function_call_output",
      call_id: "call_1",
      output: `Chunk ID: ${chunk}\nWall time: ${wall} seconds\nProcess exited with code 0\n${text}`,
    }],
  });
  assert(same("responses", output("6301fa", "0.0000", "ok"), output("2c66fc", "1.2500", "ok")));
  assert(!same("responses", output("6301fa", "0.0000", "ok"), output("6301fa", "0.0000", "no")));
});
