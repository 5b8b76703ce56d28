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
import type { ExecResult, SandboxContainer } from "../engine/sandbox.ts";
import type { AgentContext, StopReason } from "./agent.ts";
import { FIXED_FILE_TIME_TOUCH } from "../engine/fixed_file_time.ts";
import type { ReplayMaskName } from "../gateway/request_fingerprint.ts";

/** Where the task's instruction is written in the agent's container (outside the workspace). */
export const INSTRUCTION_FILE = "/tmp/verdict/instruction.md";

const PREPARE_TIMEOUT_MS = 30_000;

/** What to run. */
export interface InstalledRun {
  /** The command as the record names it. */
  command: string;
  /**
   * The shell command line that runs it (the instruction is in {@linkcode INSTRUCTION_FILE}),
   * given the words that set its clock (`env LD_PRELOAD=... `, or "" when it keeps the
   * container's own): they go right before the program, which must be the first process
   * libfaketime starts in (Claude Code's runtime cannot take over a clock a shell set up).
   */
  line(clock: string): string;
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
  /**
   * Where its clock is set: in the program (the default), libfaketime preloaded into it and so
   * into everything it starts; or only in the commands it runs, for a program libfaketime cannot
   * run in (Claude Code's runtime fails to share the clock's state with its children), whose own
   * clock stays the container's: `commandsVia` names the variable that gives it a shell script to
   * run ahead of each command (Claude Code's `CLAUDE_ENV_FILE`; it ignores `BASH_ENV`).
   */
  clockIn?: { commandsVia: string };
  /** Most bytes kept of each of stdout and stderr (head and tail). */
  maxOutputBytes: number;
  /** The masks a replay of its model calls needs. */
  replayMasks: readonly ReplayMaskName[];
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
  const faketime = await readied(context, run.homes ?? []);
  const clock = faketime === undefined || context.clockStart === undefined ? undefined : {
    start: new Date(context.clockStart),
    words: faketimeWords(faketime, context.clockStart, run.clockIn),
  };
  const folders = new Set(Object.keys(run.files ?? {}).map(folderOf));
  const writes = Object.entries(run.files ?? {}).map(([path, content]) =>
    `printf '%s' ${shellQuote(content)} > ${shellQuote(path)}`
  );
  // The command replaces the shell, and what it starts stays in the exec's session (killed at
  // the deadline).
  const stdin = run.instructionOnStdin ? shellQuote(INSTRUCTION_FILE) : "/dev/null";
  const script = [
    "set -e",
    ...(folders.size === 0 ? [] : [`mkdir -p ${[...folders].map(shellQuote).join(" ")}`]),
    ...writes,
    `exec sh -c ${shellQuote(run.line(clock?.words ?? ""))} <${stdin}`,
  ].join("\n");
  const result = await context.container.exec(script, {
    timeoutMs: context.timeoutMs,
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
    clock_start: clock?.start.toISOString() ?? null,
    replay_masks: [...run.replayMasks],
    instruction: context.task.instruction,
  })]);
  const unstartable = startFailure(result);
  if (unstartable !== undefined) {
    throw new AgentStartError(
      `the agent's command could not be executed in its container: ${unstartable} (exit ` +
        `${result.exitCode}, command ${JSON.stringify(run.line(""))}); name a program the task's ` +
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

/** What a shell runs ahead of each command when the clock is set in an agent's commands only. */
const CLOCK_SCRIPT = "/tmp/verdict/clock.sh";

/** Where Debian's `libfaketime` package puts the library, per architecture. */
const FAKETIME_LIBRARIES = [
  "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1",
  "/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1",
];

// Containers readied ahead of their trials (see readyAhead): each is made for one trial.
const ahead = new WeakMap<SandboxContainer, Ready>();

type Ready = Promise<string | undefined>;

/**
 * Readies an installed agent's container for `task` before its trial takes it (see
 * {@linkcode prepareContainer}), so that the readying exec is not on the trial's path; the run
 * that gets this container takes what it did, or its failure. First, a command through the
 * agent user's channel: once it answers, the channel's own start has made its folder in `/tmp`,
 * and nothing changes a folder the readying dates after it did.
 */
export function readyAhead(
  container: SandboxContainer,
  instruction: string,
  homes: readonly string[],
  signal: AbortSignal,
): void {
  const ready = container.exec("true", { timeoutMs: PREPARE_TIMEOUT_MS, signal })
    .then(() => prepareContainer(container, instruction, homes, signal));
  ready.catch(() => undefined); // the run that takes the container sees the failure
  ahead.set(container, ready);
}

/** The readying of the context's container: the one done ahead, else one now. */
function readied(context: AgentContext, homes: readonly string[]): Ready {
  const { container, task, signal } = context;
  const done = ahead.get(container);
  ahead.delete(container);
  return done ?? prepareContainer(container, task.instruction, homes, signal);
}

/**
 * Readies the container as root, in one exec: the agent's homes and the instruction's folder
 * (sticky and open to all, as `/tmp` is: the container's root may not `chown`, its capabilities
 * being dropped), the instruction written, and the folders the engine made at the container's
 * start (`/`, `/etc`, `/dev`, mount points, `/tmp`) and these set to the staged files' fixed
 * time, so that a listing of them reads the same on any day. Returns the image's libfaketime,
 * when it has one.
 */
async function prepareContainer(
  container: SandboxContainer,
  instruction: string,
  homes: readonly string[],
  signal: AbortSignal,
): Promise<string | undefined> {
  const made = [folderOf(INSTRUCTION_FILE), ...homes].map(shellQuote).join(" ");
  const dated = ["/", "/.dockerenv", "/etc", "/dev", "/dev/*", "/tmp", "/verdict", "/verdict/home"]
    .join(" ") + ` /verdict/agent ${made} ${shellQuote(INSTRUCTION_FILE)} ${CLOCK_SCRIPT}`;
  const script = [
    "set -e",
    `mkdir -p ${made}`,
    `chmod 1777 ${made}`,
    `cat > ${shellQuote(INSTRUCTION_FILE)}`,
    `chmod 0644 ${shellQuote(INSTRUCTION_FILE)}`,
    `for lib in ${FAKETIME_LIBRARIES.join(" ")}; do`,
    `  if [ -f "$lib" ]; then echo "$lib"; echo "export LD_PRELOAD=$lib" > ${CLOCK_SCRIPT}; break; fi`,
    "done",
    // Last, once nothing more is made in them: each path that exists and root may date (a
    // read-only mount keeps its own time).
    `touch -c -t ${FIXED_FILE_TIME_TOUCH} ${dated} 2>/dev/null || true`,
  ].join("\n");
  const prepared = await container.exec(script, {
    user: "0:0",
    timeoutMs: PREPARE_TIMEOUT_MS,
    stdin: new TextEncoder().encode(instruction),
    env: { TZ: "UTC0" },
    signal,
    maxOutputBytes: 4096,
  });
  if (prepared.aborted) throw signal.reason;
  if (prepared.exitCode !== 0) {
    throw new InfrastructureError(
      `could not ready the agent's container (its home ${homes.join(", ") || "none"}, the ` +
        `instruction at ${INSTRUCTION_FILE}): ${prepared.stderr.trim()}`,
    );
  }
  return prepared.stdout.trim() || undefined;
}

/**
 * The `env` words that start a program with its clock at `startMs` (each process it starts
 * begins there too, and the clock runs on), through libfaketime: the monotonic clock is moved with
 * it (left real, libfaketime 0.9.10 fails every timed sleep with EINVAL), file times stay real (a
 * file's time is what the kernel wrote), and each process keeps its clock's state to itself
 * (`FAKETIME_FLSHM`: a child of Claude Code's runtime cannot share it).
 */
function faketimeWords(
  library: string,
  startMs: number,
  clockIn: InstalledRun["clockIn"],
): string {
  const env = {
    ...(clockIn === undefined ? { LD_PRELOAD: library } : { [clockIn.commandsVia]: CLOCK_SCRIPT }),
    // In seconds since the epoch, so that the image's time zone does not move it.
    FAKETIME: `@${Math.floor(startMs / 1000)}`,
    FAKETIME_FMT: "%s",
    FAKETIME_DONT_FAKE_MONOTONIC: "0",
    FAKETIME_FLSHM: "1",
    NO_FAKE_STAT: "1",
  };
  // A clock the image or a parent set up is not taken over: Claude Code's runtime cannot share one.
  const unset = clockIn === undefined ? "-u FAKETIME_SHARED" : "-u LD_PRELOAD -u FAKETIME_SHARED";
  return `env ${unset} ${
    Object.entries(env).map(([key, value]) => shellQuote(`${key}=${value}`)).join(" ")
  } `;
}

function folderOf(path: string): string {
  return path.replace(/\/[^/]*$/, "") || "/";
}
