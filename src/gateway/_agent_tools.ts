/**
 * Finds an installed agent's shell tool and file-writing tool among the tools its request offers,
 * by their JSON schemas, whatever the agent calls them.
 *
 * - **Shell:** a tool whose only required property is a command: named `command`, `cmd`,
 *   `script` or `shell_command`, either a string (Claude Code's `Bash`, Codex CLI's
 *   `exec_command`, Verdict's `shell`, a Python agent's `bash`) or an array of strings, an argv
 *   (older Codex CLIs' `shell`). A string with
 *   an `enum` or a `const` is a sub-command, not a command line (the text editor tool's
 *   `command`). A property named `script` counts only when the tool's name looks like a shell
 *   (`bash`, `shell`, `sh`, `exec`, `terminal`, `run`, `cmd`, `command`), so that a `python`
 *   tool taking a script is left alone. Among several, the first whose name looks like a shell.
 * - **Writer:** a tool whose required properties are exactly a path (`path`, `file_path`,
 *   `filepath`, `file`, `filename`, `file_name`, `target_file`) and a content (`content`,
 *   `contents`, `file_text`, `text`), both strings, and whose name does not say it edits,
 *   appends, patches, inserts or replaces (Claude Code's `Write`, Verdict's and a Python agent's
 *   `write_file`; Claude Code's `Edit` has more required properties, Codex CLI's `apply_patch`
 *   has neither). The path is written absolute when the path property's description asks for an
 *   absolute path without saying "relative to", otherwise relative to the workdir.
 *
 * @module
 */
import type { ToolSchema } from "../model/model.ts";

/** The agent's shell tool. */
export interface ShellTool {
  /** The tool's name. */
  name: string;
  /** The property that takes the command. */
  property: string;
  /** A command line (`string`), or an argv (`argv`: the line goes as `[shell, "-lc", line]`). */
  form: "string" | "argv";
}

/** The agent's file-writing tool. */
export interface WriterTool {
  /** The tool's name. */
  name: string;
  /** The property that takes the file's path. */
  pathProperty: string;
  /** The property that takes the file's whole content. */
  contentProperty: string;
  /** Whether the path must be absolute (under the task's workdir). */
  absolute: boolean;
}

/** The tools the scripted model can speak through; null where the agent offers none. */
export interface AgentTools {
  /** The shell tool. */
  shell: ShellTool | null;
  /** The file-writing tool. */
  writer: WriterTool | null;
}

const COMMAND_PROPERTIES = ["command", "cmd", "script", "shell_command"];
const SHELL_NAME = /bash|shell|(^|_)sh$|exec|terminal|run|cmd|command/i;
const PATH_PROPERTIES = [
  "path",
  "file_path",
  "filepath",
  "file",
  "filename",
  "file_name",
  "target_file",
];
const CONTENT_PROPERTIES = ["content", "contents", "file_text", "text"];
const NOT_A_WRITER = /edit|append|patch|insert|replace/i;

/**
 * The agent's shell and file-writing tools, found by schema.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { findAgentTools } from "./_agent_tools.ts";
 * const tools = findAgentTools([
 *   { name: "shell", description: "", parameters: { type: "object",
 *     properties: { command: { type: "array", items: { type: "string" } } }, required: ["command"] } },
 * ]);
 * assert.deepEqual(tools.shell, { name: "shell", property: "command", form: "argv" });
 * assert.equal(tools.writer, null);
 * ```
 */
export function findAgentTools(tools: readonly ToolSchema[]): AgentTools {
  const shells = tools.flatMap((tool) => {
    const found = shellOf(tool);
    return found === null ? [] : [found];
  });
  const writers = tools.flatMap((tool) => {
    const found = writerOf(tool);
    return found === null ? [] : [found];
  });
  return {
    shell: shells.find((shell) => SHELL_NAME.test(shell.name)) ?? shells[0] ?? null,
    writer: writers[0] ?? null,
  };
}

function shellOf(tool: ToolSchema): ShellTool | null {
  const { properties, required } = shapeOf(tool);
  if (required.length !== 1 || !COMMAND_PROPERTIES.includes(required[0])) return null;
  const property = required[0];
  if (property === "script" && !SHELL_NAME.test(tool.name)) return null;
  const schema = properties[property];
  if (isPlainString(schema)) return { name: tool.name, property, form: "string" };
  if (hasType(schema, "array") && isPlainString(asRecord(schema.items))) {
    return { name: tool.name, property, form: "argv" };
  }
  return null;
}

function writerOf(tool: ToolSchema): WriterTool | null {
  if (NOT_A_WRITER.test(tool.name)) return null;
  const { properties, required } = shapeOf(tool);
  if (required.length !== 2) return null;
  const pathProperty = required.find((key) => PATH_PROPERTIES.includes(key));
  const contentProperty = required.find((key) => CONTENT_PROPERTIES.includes(key));
  if (pathProperty === undefined || contentProperty === undefined) return null;
  if (!isPlainString(properties[pathProperty]) || !isPlainString(properties[contentProperty])) {
    return null;
  }
  const description = String(properties[pathProperty].description ?? "");
  const absolute = /absolute/i.test(description) && !/relative to/i.test(description);
  return { name: tool.name, pathProperty, contentProperty, absolute };
}

function shapeOf(tool: ToolSchema): {
  properties: Record<string, Record<string, unknown>>;
  required: string[];
} {
  const rawProperties = asRecord(tool.parameters.properties);
  const properties: Record<string, Record<string, unknown>> = {};
  for (const [key, value] of Object.entries(rawProperties)) properties[key] = asRecord(value);
  const required = Array.isArray(tool.parameters.required)
    ? tool.parameters.required.filter((key): key is string =>
      typeof key === "string" && key in properties
    )
    : [];
  return { properties, required };
}

function isPlainString(schema: Record<string, unknown>): boolean {
  return hasType(schema, "string") && !("enum" in schema) && !("const" in schema);
}

function hasType(schema: Record<string, unknown>, type: string): boolean {
  return schema.type === type || (Array.isArray(schema.type) && schema.type.includes(type));
}

function asRecord(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? value as Record<string, unknown>
    : {};
}
