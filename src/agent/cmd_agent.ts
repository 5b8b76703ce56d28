/**
 * The generic installed agent (`--agent cmd:COMMAND`): COMMAND runs in the trial's container as
 * the unprivileged agent user, in the task's workdir, with the agent's own program
 * (`--agent-files DIR`) mounted read-only at {@linkcode AGENT_FILES_MOUNT} and the task's
 * instruction in the file named by `VERDICT_INSTRUCTION_FILE`. It reaches a model only through
 * the trial's gateway: the trial starts the container with the gateway's base URLs and a dummy key
 * in its environment. The task's deadline kills the command's whole process tree.
 *
 * @module
 */
import { shellQuote } from "../core/shell_quote.ts";
import { ZERO_COUNTERS } from "../store/run_counters.ts";
import { EVENT, event } from "../store/event_catalogue.ts";
import type { Agent, AgentOutcome } from "./agent.ts";

/** Where the agent's own files (`--agent-files DIR`) appear in its container. */
export const AGENT_FILES_MOUNT = "/verdict/agent";

/** Where the task's instruction is written in the agent's container (outside the workspace). */
export const INSTRUCTION_FILE = "/tmp/verdict/instruction.md";

/** Most bytes of each of stdout and stderr the record keeps (head and tail). */
export const MAX_RECORDED_OUTPUT_BYTES = 64 * 1024;

/** The `cmd:` prefix that names an installed agent's command. */
export const CMD_PREFIX = "cmd:";

/** An agent that is a program installed in the trial's container, reaching a model via the gateway. */
export interface InstalledAgent extends Agent {
  /** The host folder mounted read-only at {@linkcode AGENT_FILES_MOUNT}; null for none. */
  readonly files: string | null;
  /** Whether its container gets the trial's model gateway (on loopback, with a dummy key). */
  readonly gateway: true;
}

/**
 * The agent that runs `command` (a shell command line) in the trial's container.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { cmdAgent } from "./cmd_agent.ts";
 * const agent = cmdAgent("sh /verdict/agent/run.sh", "/home/me/agent");
 * assert.equal(agent.name, "cmd:sh /verdict/agent/run.sh");
 * assert.equal(agent.files, "/home/me/agent");
 * ```
 */
export function cmdAgent(command: string, files: string | null): InstalledAgent {
  return {
    name: `${CMD_PREFIX}${command}`,
    files,
    gateway: true,
    async run(context): Promise<AgentOutcome> {
      // The instruction goes in through stdin, so it needs no quoting; the command replaces the
      // shell, and what it starts stays in the exec's session (killed at the deadline).
      const script = `set -e
mkdir -p ${shellQuote(INSTRUCTION_FILE.replace(/\/[^/]*$/, ""))}
cat > ${shellQuote(INSTRUCTION_FILE)}
exec sh -c ${shellQuote(command)} </dev/null`;
      const result = await context.container.exec(script, {
        timeoutMs: context.timeoutMs,
        stdin: new TextEncoder().encode(context.task.instruction),
        env: { VERDICT_INSTRUCTION_FILE: INSTRUCTION_FILE },
        signal: context.signal,
        maxOutputBytes: MAX_RECORDED_OUTPUT_BYTES,
      });
      if (result.aborted) throw context.signal.reason;
      context.record([event(EVENT.agentCmd, {
        command,
        exit_code: result.exitCode,
        timed_out: result.timedOut,
        stdout: result.stdout,
        stderr: result.stderr,
      })]);
      const stopReason = result.timedOut
        ? "timeout"
        : result.exitCode === 0
        ? "completed"
        : "error";
      return {
        stopReason,
        counters: { ...ZERO_COUNTERS, finished: stopReason === "completed" },
        tokens: { input: 0, output: 0 },
        detail: stopReason === "error"
          ? `the agent's command exited ${result.exitCode}`
          : undefined,
      };
    },
  };
}

/**
 * The installed agent `agent` is, or undefined for Verdict's own agents.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { cmdAgent, installedAgent } from "./cmd_agent.ts";
 * import { nopAgent } from "./nop.ts";
 * assert.equal(installedAgent(nopAgent), undefined);
 * assert(installedAgent(cmdAgent("true", null)));
 * ```
 */
export function installedAgent(agent: Agent): InstalledAgent | undefined {
  return "gateway" in agent && agent.gateway === true ? agent as InstalledAgent : undefined;
}
