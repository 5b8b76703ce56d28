/**
 * The generic installed agent (`--agent cmd:COMMAND`): COMMAND runs in the trial's container as
 * the unprivileged agent user, in the task's workdir, with the agent's own program
 * (`--agent-files DIR`) copied in at {@linkcode AGENT_FILES_MOUNT} (root's, readable by every
 * user, whatever the folder's own modes; a copy through the engine, never a bind mount) and the task's
 * instruction in the file named by `VERDICT_INSTRUCTION_FILE` (`_installed_run.ts`). It reaches a model only through
 * the trial's gateway: the trial starts the container with the gateway's base URLs and a dummy key
 * in its environment. The task's deadline kills the command's whole process tree.
 *
 * @module
 */
import { sha256Hex } from "../core/hash.ts";
import { shellQuote } from "../core/shell_quote.ts";
import { ALL_REPLAY_MASKS } from "../gateway/request_fingerprint.ts";
import type { BindMount, SandboxContainer } from "../engine/sandbox.ts";
import { packTar, type TarEntry } from "../engine/tar.ts";
import { ZERO_COUNTERS } from "../store/run_counters.ts";
import { readTree } from "../task/file_tree.ts";
import type { Agent, AgentOutcome } from "./agent.ts";
import type { Task } from "../task/task.ts";
import { readyAhead, runInstalled } from "./_installed_run.ts";

/** Where the agent's own files (`--agent-files DIR`) appear in its container. */
export const AGENT_FILES_MOUNT = "/verdict/agent";

/** Most bytes of each of stdout and stderr the record keeps (head and tail). */
export const MAX_RECORDED_OUTPUT_BYTES = 64 * 1024;

/** The `cmd:` prefix that names an installed agent's command. */
export const CMD_PREFIX = "cmd:";

/** An agent that is a program installed in the trial's container, reaching a model via the gateway. */
export interface InstalledAgent extends Agent {
  /** The host folder of `--agent-files`, copied in at {@linkcode AGENT_FILES_MOUNT}; null for none. */
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
  /**
   * The sha256 of what it runs beyond its name: its `--agent-files` (as copied in) or its kit's
   * files; null when its name says it all. Part of the run's identity.
   */
  digest(): Promise<string | null>;
  /**
   * Readies its container for `task` before the trial takes it (a container started ahead): what
   * it would otherwise do as root at the start of its run, off the trial's path. A `cmd:` agent
   * with `--agent-files` does it at its start, after copying them in.
   */
  readyAhead(container: SandboxContainer, task: Task, signal: AbortSignal): void;
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
 * assert.deepEqual(agent.mounts, []); // its files are copied in when it starts
 * ```
 */
export function cmdAgent(command: string, files: string | null): InstalledAgent {
  return {
    name: `${CMD_PREFIX}${command}`,
    files,
    mounts: [],
    gateway: true,
    digest: async () => files === null ? null : sha256Hex(await agentFilesTar(files)),
    // Its files go in at its start, into `/verdict`, which the readying dates: it readies after them.
    readyAhead: (container, task, signal) =>
      files === null ? readyAhead(container, task.instruction, [], signal) : undefined,
    async run(context): Promise<AgentOutcome> {
      if (files !== null) await context.container.copyIn(await agentFilesTar(files), "/");
      const { result, stopReason } = await runInstalled(context, {
        command,
        line: (clock) => clock === "" ? command : `exec ${clock}sh -c ${shellQuote(command)}`,
        maxOutputBytes: MAX_RECORDED_OUTPUT_BYTES,
        // A program of the user's own: any client, so every mask.
        replayMasks: ALL_REPLAY_MASKS,
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

/**
 * The agent's folder as a tar stream rooted at `/`, landing at `target` (absolute; by default
 * {@linkcode AGENT_FILES_MOUNT}):
 * root's, folders 0755, files 0644 or (executable by their owner) 0755, so that the agent user
 * reads and runs them but cannot change them, whatever the modes on the host (`mktemp -d` makes
 * 0700). Links stay links.
 *
 * @example
 * ```ts ignore
 * import { agentFilesTar } from "./cmd_agent.ts";
 * const tar = await agentFilesTar("/home/me/agent");
 * ```
 */
export async function agentFilesTar(
  folder: string,
  target: string = AGENT_FILES_MOUNT,
): Promise<Uint8Array> {
  const at = target.slice(1);
  const entries: TarEntry[] = (await readTree(folder)).map((entry) => {
    const path = `${at}/${entry.path}`;
    if (entry.type === "symlink") return { ...entry, path };
    if (entry.type === "dir") return { ...entry, path, mode: 0o755 };
    return { ...entry, path, mode: entry.mode & 0o100 ? 0o755 : 0o644 };
  });
  return packTar([{ path: at, type: "dir", mode: 0o755 }, ...entries], { uid: 0, gid: 0 });
}

const copies = new WeakMap<InstalledAgent, Promise<Uint8Array[]>>();

/**
 * What `agent` mounts, as tar streams that land where each mount would (made once per agent):
 * for an engine that must not see a host path (another host's), where they are copied in.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { cmdAgent, mountsAsCopies } from "./cmd_agent.ts";
 * assert.deepEqual(await mountsAsCopies(cmdAgent("true", null)), []);
 * ```
 */
export function mountsAsCopies(agent: InstalledAgent): Promise<Uint8Array[]> {
  let made = copies.get(agent);
  if (made === undefined) {
    made = Promise.all(agent.mounts.map(({ source, target }) => agentFilesTar(source, target)));
    copies.set(agent, made);
  }
  return made;
}
