/**
 * `finish`: the agent says it is done. What it claims changes nothing: the hidden tests decide.
 *
 * @module
 */
import { z } from "zod";
import type { Tool } from "./tool.ts";
import { toolSchema } from "./tool_schema.ts";

const FINISH_ARGS = z.strictObject({ summary: z.string().optional() });

/** Ends the agent's work. */
export const finishTool: Tool<{ summary?: string }> = {
  schema: toolSchema(
    "finish",
    "Call when the task is done, with a short summary of what you changed.",
    FINISH_ARGS,
  ),
  idempotent: true,
  mutates: false,
  args: FINISH_ARGS,
  run() {
    return Promise.resolve({ content: "finished", isError: false, finish: true });
  },
};
