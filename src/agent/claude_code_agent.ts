/**
 * Claude Code as an installed agent (`--agent claude-code[@VERSION]`): its kit's binary runs
 * headless (`-p`, the prompt on stdin, permissions bypassed, `stream-json` transcript on stdout)
 * as the agent user, which
 * it requires for `--dangerously-skip-permissions`, with a writable home, no nonessential traffic
 * (else it looks up the provider's host first) and two retries (else an unreachable gateway is
 * retried for a long time). It reaches the model through the trial's gateway
 * (`ANTHROPIC_BASE_URL` and the dummy key come with the container).
 *
 * @module
 */
import { shellQuote } from "../core/shell_quote.ts";
import type { Kit } from "../kit/kit_store.ts";
import { readClaudeCodeTranscript } from "./claude_code_transcript.ts";
import type { InstalledAgent } from "./cmd_agent.ts";
import { cliModelName, KIT_MOUNT, kitAgent } from "./_kit_agent.ts";

/** The provider API Claude Code speaks (a `--model` of another provider cannot drive it). */
export const CLAUDE_CODE_API = "anthropic";

/** Claude Code's home in its container: the agent user's, outside the workspace. */
export const CLAUDE_CODE_HOME = "/verdict/home/claude";

/**
 * The Claude Code agent of `kit`, told the model `--model anthropic:NAME` names (its own default
 * for the scripted model).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { claudeCodeAgent } from "./claude_code_agent.ts";
 * const kit = {
 *   agent: "claude-code", version: "2.1.332", folder: "/kits/claude-code/2.1.332", binary: "claude",
 *   sha256: "", size: 1, interpreter: "/lib64/ld-linux-x86-64.so.2", packages: [], companions: [],
 * };
 * const agent = claudeCodeAgent(kit, "scripted");
 * assert.equal(agent.name, "claude-code@2.1.332");
 * assert.equal(agent.mounts[0].target, "/verdict/kit");
 * ```
 * @throws {UsageError} when `model` names an OpenAI model (Claude Code speaks Anthropic's API).
 */
export function claudeCodeAgent(kit: Kit, model: string): InstalledAgent {
  const name = cliModelName(model, CLAUDE_CODE_API, kit.agent);
  // The prompt comes on stdin: no quoting, no length limit, no reading a leading "-" as a flag.
  const args = [
    "-p",
    "--dangerously-skip-permissions",
    "--output-format",
    "stream-json",
    "--verbose",
    ...(name === null ? [] : ["--model", shellQuote(name)]),
  ];
  return kitAgent(kit, {
    run: {
      command: `claude ${args.join(" ")}`,
      line: (clock) => `exec ${clock}${KIT_MOUNT}/${kit.binary} ${args.join(" ")}`,
      homes: [CLAUDE_CODE_HOME],
      instructionOnStdin: true,
      // Its runtime cannot run under libfaketime: the commands it runs see the run's start
      // (through the script it runs ahead of each), it sees the container's clock. Masked: its session id, the kernel's version and today's
      // date in its prompt.
      clockIn: { commandsVia: "CLAUDE_ENV_FILE" },
      replayMasks: ["claude-code-user-id", "os-version", "todays-date"],
      env: {
        HOME: CLAUDE_CODE_HOME,
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
        CLAUDE_CODE_MAX_RETRIES: "2",
        // The trial's container is the sandbox: without this, Claude Code refuses to skip its
        // permission prompts as root, which is how every agent runs on a Harbor task.
        IS_SANDBOX: "1",
      },
    },
    read: readClaudeCodeTranscript,
  });
}
