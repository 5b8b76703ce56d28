/**
 * The `shell` tool: a command run with `sh -c` in the workdir, killed with everything it started
 * when it outlives its timeout, its output cut to head and tail.
 *
 * @module
 */
import { z } from "zod";
import type { Tool } from "./tool.ts";
import { toolSchema } from "./tool_schema.ts";
import { truncateMiddle } from "./truncate.ts";

const DEFAULT_TIMEOUT_S = 120;

const SHELL_ARGS = z.strictObject({
  command: z.string().min(1),
  timeout_s: z.number().int().min(1).max(3600).optional(),
});

/** Runs a shell command. */
export const shellTool: Tool<{ command: string; timeout_s?: number }> = {
  schema: toolSchema(
    "shell",
    "Run a shell command (sh -c) in the workspace. Output is cut to its head and tail when long. " +
      "Default timeout 120 s; background processes must redirect their output.",
    SHELL_ARGS,
  ),
  idempotent: false,
  mutates: true,
  args: SHELL_ARGS,
  async run(args, context) {
    const timeoutMs = (args.timeout_s ?? DEFAULT_TIMEOUT_S) * 1000;
    const result = await context.container.exec(args.command, {
      timeoutMs,
      signal: context.signal,
    });
    if (result.aborted) throw context.signal.reason;
    const parts = [
      result.timedOut
        ? `the command ran past ${Math.round(timeoutMs / 1000)} s and was killed`
        : `exit code ${result.exitCode}`,
      ...(result.stdout ? ["--- stdout ---", result.stdout.replace(/\n$/, "")] : []),
      ...(result.stderr ? ["--- stderr ---", result.stderr.replace(/\n$/, "")] : []),
    ];
    return { content: truncateMiddle(parts.join("\n")), isError: result.timedOut };
  },
};
