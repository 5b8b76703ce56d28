/**
 * The generic installed agent (`--agent cmd:COMMAND`): COMMAND runs in the trial's container as
 * the unprivileged agent user, in the task's workdir, with the agent's own program
 * (`--agent-files DIR`) mounted read-only at {@linkcode AGENT_FILES_MOUNT} and the task's
 * instruction in the file named by `VERDICT_INSTRUCTION_FILE` (`_installed_run.ts`). It reaches a model only through
 * the trial's gateway: the trial starts the container with the gateway's base URLs and a dummy key
 * in its environment. The task's deadline kills the command's whole process tree.
 *
 * @module
 */
import type { BindMount } from "../sandbox/sandbox.ts";
import { ZERO_COUNTERS } from "../store/run_counters.ts";
import type { Agent, AgentOutcome } from "./agent.ts";
import { runInstalled } from "./_installed_run.ts";

/** Where the agent's own files (`--agent-files DIR`) appear in its container. */
export const AGENT_FILES_MOUNT = "/verdict/agent";

/** Most bytes of each of stdout and stderr the record keeps (head and tail). */
export const MAX_RECORDED_OUTPUT_BYTES = 64 * 1024;

/** The `cmd:` prefix that names an installed agent's command. */
export const CMD_PREFIX = "cmd:";

/** An agent that is a program installed in the trial's container, reaching a model via the gateway. */
export interface InstalledAgent extends Agent {
  /** The host folder of `--agent-files`, mounted read-only at {@linkcode AGENT_FILES_MOUNT}; null for none. */
  readonly files: string | null;
  /** What its container mounts besides the workspace (its files, its kit), read-only. */
  readonly mounts: readonly BindMount[];
  /** Whether its container gets the trial's model gateway (on loopback, with a dummy key). */
  readonly gateway: true;
  /**
   * A command that must succeed in a task's image for the agent to run there (with its mounts),
   * and what the image lacks when it fails; absent when any image will do.
   */
  readonly probe?: { command: string; needs: string };
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
 * assert.deepEqual(agent.mounts, [{ source: "/home/me/agent", target: "/verdict/agent", readOnly: true }]);
 * ```
 */
export function cmdAgent(command: string, files: string | null): InstalledAgent {
  return {
    name: `${CMD_PREFIX}${command}`,
    files,
    mounts: files === null ? [] : [{ source: files, target: AGENT_FILES_MOUNT, readOnly: true }],
    gateway: true,
    async run(context): Promise<AgentOutcome> {
      const { result, stopReason } = await runInstalled(context, {
        command,
        line: command,
        maxOutputBytes: MAX_RECORDED_OUTPUT_BYTES,
      });
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
