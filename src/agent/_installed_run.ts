/**
 * Running an installed agent's program in the trial's container, shared by `cmd:COMMAND` and the
 * kit agents: the instruction goes in on stdin to a file outside the workspace, the program runs
 * as the agent user in the task's workdir with stdin closed, the task's deadline kills its whole
 * process tree, and what it printed is recorded in an `agent.cmd` event.
 *
 * @module
 */
import { AgentStartError, InfrastructureError } from "../core/errors.ts";
import { shellQuote } from "../core/shell_quote.ts";
import { EVENT, event } from "../store/event_catalogue.ts";
import type { ExecResult } from "../engine/sandbox.ts";
import type { AgentContext, StopReason } from "./agent.ts";

/** Where the task's instruction is written in the agent's container (outside the workspace). */
export const INSTRUCTION_FILE = "/tmp/verdict/instruction.md";

const HOME_TIMEOUT_MS = 30_000;

/** What to run. */
export interface InstalledRun {
  /** The command as the record names it. */
  command: string;
  /** The shell command line that runs it (the instruction is in {@linkcode INSTRUCTION_FILE}). */
  line: string;
  /** Extra environment. */
  env?: Record<string, string>;
  /**
   * Folders made (by root) for the agent user before it starts, such as its home: the
   * agent user may write nowhere else outside the workspace but `/tmp`, which some CLIs refuse
   * for their home.
   */
  homes?: string[];
  /** Whether the program reads the instruction on stdin (else its stdin is `/dev/null`). */
  instructionOnStdin?: boolean;
  /** Files to write before it starts (path → content), such as a config file. */
  files?: Record<string, string>;
  /** Most bytes kept of each of stdout and stderr (head and tail). */
  maxOutputBytes: number;
}

/**
 * Runs `run` in the trial's container and records its `agent.cmd` event.
 *
 * @returns what the command did, and the stop reason its end means (`timeout` past the deadline,
 * `completed` on exit 0, else `error`).
 * @throws the run's abort reason when the run is interrupted; {@linkcode AgentStartError} when the
 * shell could not start the program (126/127 with the shell's own "not found" or "Permission
 * denied").
 */
export async function runInstalled(
  context: AgentContext,
  run: InstalledRun,
): Promise<{ result: ExecResult; stopReason: StopReason }> {
  if (run.homes !== undefined && run.homes.length > 0) await makeHomes(context, run.homes);
  const folders = new Set([INSTRUCTION_FILE, ...Object.keys(run.files ?? {})].map(folderOf));
  const writes = Object.entries(run.files ?? {}).map(([path, content]) =>
    `printf '%s' ${shellQuote(content)} > ${shellQuote(path)}`
  );
  // The instruction goes in through stdin, so it needs no quoting; the command replaces the
  // shell, and what it starts stays in the exec's session (killed at the deadline).
  const stdin = run.instructionOnStdin ? shellQuote(INSTRUCTION_FILE) : "/dev/null";
  const script = [
    "set -e",
    `mkdir -p ${[...folders].map(shellQuote).join(" ")}`,
    `cat > ${shellQuote(INSTRUCTION_FILE)}`,
    ...writes,
    `exec sh -c ${shellQuote(run.line)} <${stdin}`,
  ].join("\n");
  const result = await context.container.exec(script, {
    timeoutMs: context.timeoutMs,
    stdin: new TextEncoder().encode(context.task.instruction),
    env: { VERDICT_INSTRUCTION_FILE: INSTRUCTION_FILE, ...run.env },
    signal: context.signal,
    maxOutputBytes: run.maxOutputBytes,
  });
  if (result.aborted) throw context.signal.reason;
  context.record([event(EVENT.agentCmd, {
    command: run.command,
    exit_code: result.exitCode,
    timed_out: result.timedOut,
    stdout: result.stdout,
    stderr: result.stderr,
  })]);
  const unstartable = startFailure(result);
  if (unstartable !== undefined) {
    throw new AgentStartError(
      `the agent's command could not be executed in its container: ${unstartable} (exit ` +
        `${result.exitCode}, command ${JSON.stringify(run.line)}); name a program the task's ` +
        `image has, and make a script executable (chmod +x) or start it with its interpreter`,
    );
  }
  const stopReason = result.timedOut ? "timeout" : result.exitCode === 0 ? "completed" : "error";
  return { result, stopReason };
}

// The shell's own word that it could not run a command (126: found but not executable, 127: not
// found); the same exit from a program that did run is the agent's, and prints no such line.
const CANNOT_EXECUTE =
  /(?:not found|Permission denied|cannot execute[^\n]*|Exec format error|No such file or directory)$/;

function startFailure(result: ExecResult): string | undefined {
  if (result.timedOut || (result.exitCode !== 126 && result.exitCode !== 127)) return undefined;
  const last = result.stderr.trimEnd().split("\n").at(-1) ?? "";
  return CANNOT_EXECUTE.test(last) ? last : undefined;
}

/**
 * Makes each of `homes` as root, writable by the agent user: sticky and open to all, as `/tmp`
 * is (the container's root may not `chown`: its capabilities are dropped).
 */
async function makeHomes(context: AgentContext, homes: readonly string[]): Promise<void> {
  const quoted = homes.map(shellQuote).join(" ");
  const made = await context.container.exec(
    `mkdir -p ${quoted} && chmod 1777 ${quoted}`,
    { user: "0:0", timeoutMs: HOME_TIMEOUT_MS, signal: context.signal, maxOutputBytes: 4096 },
  );
  if (made.aborted) throw context.signal.reason;
  if (made.exitCode !== 0) {
    throw new InfrastructureError(
      `could not make the agent's home ${homes.join(", ")} in its container: ${made.stderr.trim()}`,
    );
  }
}

function folderOf(path: string): string {
  return path.replace(/\/[^/]*$/, "") || "/";
}
