/**
 * `finish`: the agent says it is done. What it claims changes nothing: the hidden tests decide.
 *
 * @module
 */
import { z } from "zod";
import type { Tool } from "./tool.ts";

/** Ends the agent's work. */
export const finishTool: Tool<{ summary?: string }> = {
  schema: {
    name: "finish",
    description: "Call when the task is done, with a short summary of what you changed.",
    parameters: {
      type: "object",
      properties: { summary: { type: "string" } },
      additionalProperties: false,
    },
  },
  idempotent: true,
  mutates: false,
  args: z.strictObject({ summary: z.string().optional() }),
  run() {
    return Promise.resolve({ content: "finished", isError: false, finish: true });
  },
};
