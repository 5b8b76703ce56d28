/**
 * Running a tool's script in the container with the workdir and arguments passed as environment
 * variables (never spliced into the script text), stopped by the task's deadline.
 *
 * @module
 */
import type { ExecResult } from "../engine/sandbox.ts";
import type { ToolContext } from "./tool.ts";

/** The longest any single file tool may take. */
const FILE_TOOL_TIMEOUT_MS = 60_000;

/**
 * Runs a tool script; `env` values reach it as `$VERDICT_*` variables.
 * @throws the signal's reason when the deadline or an interrupt stops it.
 */
export async function execTool(
  context: ToolContext,
  script: string,
  env: Record<string, string>,
  options: { stdin?: Uint8Array; timeoutMs?: number; maxOutputBytes?: number } = {},
): Promise<ExecResult> {
  const result = await context.container.exec(script, {
    timeoutMs: options.timeoutMs ?? FILE_TOOL_TIMEOUT_MS,
    stdin: options.stdin,
    maxOutputBytes: options.maxOutputBytes,
    env: { VERDICT_WORKDIR: context.task.manifest.workdir.replace(/\/+$/, ""), ...env },
    signal: context.signal,
  });
  if (result.aborted) throw context.signal.reason;
  return result;
}
