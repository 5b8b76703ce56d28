/**
 * A recorded or user-written string never reaches the terminal as a control sequence: `tasks list`
 * of a task whose category holds an OSC title change, a colour and a carriage return prints them
 * written out, while its JSON output still parses to the very same string; progress's own redraw
 * passes.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { terminalSafe } from "../../src/cli/_terminal_safe.ts";
import { runVerdictInProcess } from "./_in_process.ts";
import { scratchDir } from "../_verdict.ts";
import { minimalTask, writeFiles } from "../task/_task_fixture.ts";

const HOSTILE = "shell\x1b]0;pwned\x07\x1b[31mred\rhidden\u202eevil\x9b2J";

Deno.test("tasks list writes out the controls in a task's category; its JSON keeps the string", async () => {
  await using dir = await scratchDir("terminal");
  const files = minimalTask("hostile");
  files["task.yaml"] = files["task.yaml"].replace(
    "category: shell",
    `category: ${JSON.stringify(HOSTILE)}`,
  );
  await writeFiles(join(dir.path, "hostile"), files);
  const listed = await runVerdictInProcess(["tasks", "list", dir.path]);
  assert.equal(listed.code, 0, listed.stderr);
  // deno-lint-ignore no-control-regex
  assert.doesNotMatch(listed.stdout, /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202e]/);
  assert.ok(
    listed.stdout.includes("shell\\u001b]0;pwned\\u0007\\u001b[31mred\\u000dhidden\\u202eevil"),
    listed.stdout,
  );
  const json = await runVerdictInProcess(["tasks", "list", dir.path, "--json"]);
  assert.equal(JSON.parse(json.stdout).tasks[0].category, HOSTILE);
});

Deno.test("progress's redraw passes; tabs and line breaks stay", () => {
  assert.equal(terminalSafe("\r\x1b[K3/10\tdone\n"), "\r\x1b[K3/10\tdone\n");
  assert.equal(terminalSafe("\r\x1b[2K"), "\\u000d\\u001b[2K");
});
