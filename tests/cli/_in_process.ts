/**
 * The CLI run in the test's own process, for commands that refuse their input before any trial
 * starts: the same dispatch, flag parsing and exit codes as `runVerdict`'s subprocess, without a
 * Deno start for each case (the subprocess is kept where the permission set is what is tested).
 *
 * @module
 */
import { memoryIo } from "../../src/cli/io.ts";
import { runCli } from "../../src/cli/main.ts";
import type { CliResult } from "../_verdict.ts";

/** Runs `verdict ARGS` in-process, with only PATH, HOME, NO_COLOR and `env` in its environment. */
export async function runVerdictInProcess(
  args: string[],
  env: Record<string, string> = {},
): Promise<CliResult> {
  const io = memoryIo({
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    HOME: Deno.env.get("HOME") ?? "/root",
    NO_COLOR: "1",
    ...env,
  });
  const code = await runCli(args, io);
  return { code, stdout: io.stdout(), stderr: io.stderr() };
}
