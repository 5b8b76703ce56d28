/**
 * The tool lists real agents offer (their schemas as sent, trimmed to what the scripted model
 * reads: names, descriptions of path properties, types, required properties).
 *
 * @module
 */
import type { ToolSchema } from "../../src/model/model.ts";
import { BUILTIN_TOOLS } from "../../src/tools/builtin_tools.ts";

function tool(
  name: string,
  properties: Record<string, unknown>,
  required: string[],
): ToolSchema {
  return {
    name,
    description: `${name} tool`,
    parameters: { type: "object", properties, required },
  };
}

const STRING = { type: "string" };

/** Claude Code: `Bash` takes a command line, `Write` an absolute `file_path` and `content`. */
export const CLAUDE_CODE_TOOLS: ToolSchema[] = [
  tool("Task", { description: STRING, prompt: STRING, subagent_type: STRING }, [
    "description",
    "prompt",
    "subagent_type",
  ]),
  tool("Bash", {
    command: { type: "string", description: "The command to execute" },
    timeout: { type: "number" },
    description: STRING,
    run_in_background: { type: "boolean" },
  }, ["command"]),
  tool("Glob", { pattern: STRING, path: STRING }, ["pattern"]),
  tool("Grep", { pattern: STRING, path: STRING, glob: STRING }, ["pattern"]),
  tool("Read", { file_path: STRING, offset: { type: "number" }, limit: { type: "number" } }, [
    "file_path",
  ]),
  tool("Edit", { file_path: STRING, old_string: STRING, new_string: STRING, replace_all: {} }, [
    "file_path",
    "old_string",
    "new_string",
  ]),
  tool("Write", {
    file_path: {
      type: "string",
      description: "The absolute path to the file to write (must be absolute, not relative)",
    },
    content: { type: "string", description: "The content to write to the file" },
  }, ["file_path", "content"]),
  tool("NotebookEdit", { notebook_path: STRING, new_source: STRING }, [
    "notebook_path",
    "new_source",
  ]),
  tool("BashOutput", { bash_id: STRING, filter: STRING }, ["bash_id"]),
  tool("KillShell", { shell_id: STRING }, ["shell_id"]),
  tool("TodoWrite", { todos: { type: "array", items: { type: "object" } } }, ["todos"]),
];

/** Codex CLI: `shell` takes an argv, files change through `apply_patch` (not a writer). */
export const CODEX_TOOLS: ToolSchema[] = [
  tool("shell", {
    command: { type: "array", items: { type: "string" } },
    workdir: STRING,
    timeout_ms: { type: "number" },
  }, ["command"]),
  tool("update_plan", { explanation: STRING, plan: { type: "array" } }, ["plan"]),
  tool("apply_patch", { input: STRING }, ["input"]),
  tool("view_image", { path: STRING }, ["path"]),
];

/** The Python fixture agent (tests/fixtures/agents/py_agent/agent.py). */
export const PY_AGENT_TOOLS: ToolSchema[] = [
  tool("bash", { command: STRING }, ["command"]),
  tool("write_file", {
    path: { type: "string", description: "Path relative to the working folder." },
    content: STRING,
  }, ["path", "content"]),
];

/** Verdict's own loop. */
export const VERDICT_TOOLS: ToolSchema[] = BUILTIN_TOOLS.map((builtin) => builtin.schema);

/** A text editor tool whose `command` is a sub-command, and a tool that runs Python scripts. */
export const DECOY_TOOLS: ToolSchema[] = [
  tool("str_replace_based_edit_tool", {
    command: { type: "string", enum: ["view", "create", "str_replace", "insert"] },
    path: STRING,
    file_text: STRING,
  }, ["command", "path"]),
  tool("python", { script: STRING }, ["script"]),
  tool("append_file", { path: STRING, content: STRING }, ["path", "content"]),
];
