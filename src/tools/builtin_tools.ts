/**
 * The built-in tools of SPEC section 5, by name.
 *
 * @module
 */
import { readDocsTool } from "./docs_tool.ts";
import {
  editFileTool,
  listDirTool,
  readFileTool,
  searchTool,
  writeFileTool,
} from "./file_tools.ts";
import { finishTool } from "./finish_tool.ts";
import { shellTool } from "./shell_tool.ts";
import type { AnyTool } from "./tool.ts";

/**
 * Every built-in tool, in the order the model is shown them.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { BUILTIN_TOOLS } from "./builtin_tools.ts";
 * assert(BUILTIN_TOOLS.map((tool) => tool.schema.name).includes("shell"));
 * ```
 */
export const BUILTIN_TOOLS: readonly AnyTool[] = [
  readFileTool,
  writeFileTool,
  editFileTool,
  listDirTool,
  searchTool,
  shellTool,
  readDocsTool,
  finishTool,
];
