import assert from "node:assert/strict";
import { canonicalJson } from "../../src/core/canonical_json.ts";
import { toolsHash } from "../../src/model/fingerprint.ts";
import { BUILTIN_TOOLS } from "../../src/tools/builtin_tools.ts";
import { editFileTool, readFileTool, searchTool } from "../../src/tools/file_tools.ts";
import { shellTool } from "../../src/tools/shell_tool.ts";
import type { AnyTool } from "../../src/tools/tool.ts";

// The schemas the model has been shown since 0.1.0, copied from the hand-written literals before
// they were derived from the tools' zod arguments. They are in every recorded request and in its
// fingerprint: a change here makes every recorded run's replay diverge.
const SHOWN_SINCE_0_1_0 = [
  {
    name: "read_file",
    description:
      "Read a text file in the workspace. Optional `offset` (first line, from 1) and `limit` (number of lines).",
    parameters: {
      type: "object",
      properties: {
        path: { type: "string", description: "Path relative to the workspace." },
        offset: { type: "integer", minimum: 1 },
        limit: { type: "integer", minimum: 1 },
      },
      required: ["path"],
      additionalProperties: false,
    },
  },
  {
    name: "write_file",
    description:
      "Create or overwrite a file in the workspace with the given content; folders are created as needed.",
    parameters: {
      type: "object",
      properties: { path: { type: "string" }, content: { type: "string" } },
      required: ["path", "content"],
      additionalProperties: false,
    },
  },
  {
    name: "edit_file",
    description:
      "Replace `old_text` with `new_text` in a file. `old_text` must occur exactly once unless `replace_all` is true.",
    parameters: {
      type: "object",
      properties: {
        path: { type: "string" },
        old_text: { type: "string" },
        new_text: { type: "string" },
        replace_all: { type: "boolean" },
      },
      required: ["path", "old_text", "new_text"],
      additionalProperties: false,
    },
  },
  {
    name: "list_dir",
    description:
      "List a folder of the workspace (default: the workspace itself), `depth` levels deep (default 2). Folders end with /.",
    parameters: {
      type: "object",
      properties: { path: { type: "string" }, depth: { type: "integer", minimum: 1, maximum: 10 } },
      additionalProperties: false,
    },
  },
  {
    name: "search",
    description:
      "Search the workspace (or `path` in it) for an extended regular expression; prints path:line:text. `glob` keeps only matching paths.",
    parameters: {
      type: "object",
      properties: {
        pattern: { type: "string" },
        path: { type: "string" },
        glob: { type: "string" },
      },
      required: ["pattern"],
      additionalProperties: false,
    },
  },
  {
    name: "shell",
    description:
      "Run a shell command (sh -c) in the workspace. Output is cut to its head and tail when long. " +
      "Default timeout 120 s; background processes must redirect their output.",
    parameters: {
      type: "object",
      properties: {
        command: { type: "string" },
        timeout_s: { type: "integer", minimum: 1, maximum: 3600 },
      },
      required: ["command"],
      additionalProperties: false,
    },
  },
  {
    name: "read_docs",
    description: "Read one of the task's documentation pages. Call it without `page` to list them.",
    parameters: {
      type: "object",
      properties: { page: { type: "string" } },
      additionalProperties: false,
    },
  },
  {
    name: "finish",
    description: "Call when the task is done, with a short summary of what you changed.",
    parameters: {
      type: "object",
      properties: { summary: { type: "string" } },
      additionalProperties: false,
    },
  },
];

// sha256 of the canonical JSON of the schemas above, as recorded requests' manifests name it.
const TOOLS_HASH_SINCE_0_1_0 = "e7f9b27e6373be19027e5be10b0f4af82854c95640d27cdf6f39181bf120f81a";

Deno.test("every built-in tool shows the model the schema it has shown since 0.1.0, byte for byte", () => {
  const shown = BUILTIN_TOOLS.map((tool) => tool.schema);
  for (const [index, expected] of SHOWN_SINCE_0_1_0.entries()) {
    // Key order too: the request body a provider receives is the schema's JSON as written.
    assert.equal(JSON.stringify(shown[index]), JSON.stringify(expected), expected.name);
  }
  assert.equal(shown.length, SHOWN_SINCE_0_1_0.length);
  assert.equal(canonicalJson(shown), canonicalJson(SHOWN_SINCE_0_1_0));
  assert.equal(toolsHash(shown), TOOLS_HASH_SINCE_0_1_0);
});

Deno.test("what the shown schema leaves out, the arguments still refuse", () => {
  const problems = (tool: AnyTool, args: unknown) => {
    const parsed = tool.args.safeParse(args);
    return parsed.success ? [] : parsed.error.issues.map((issue) => issue.path.join("."));
  };
  assert.deepEqual(problems(shellTool, { command: "" }), ["command"]);
  assert.deepEqual(problems(searchTool, { pattern: "" }), ["pattern"]);
  assert.deepEqual(problems(editFileTool, { path: "a", old_text: "", new_text: "b" }), [
    "old_text",
  ]);
  assert.deepEqual(problems(readFileTool, { path: "a", limit: 2 ** 53 }), ["limit"]);
  assert.deepEqual(problems(readFileTool, { path: "a", limit: 2 ** 53 - 1 }), []);
});
