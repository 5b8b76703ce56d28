/**
 * What Claude Code and Codex CLI share as installed agents: the kit's folder is mounted read-only
 * at {@linkcode KIT_MOUNT}, the CLI runs through `_installed_run.ts`, and its own transcript
 * (stdout) is read into an `agent.transcript` event right after the `agent.cmd` event, its tool
 * calls counted as the loop's are.
 *
 * @module
 */
import { canonicalJson } from "../core/canonical_json.ts";
import { UsageError } from "../core/errors.ts";
import { sha256Hex } from "../core/hash.ts";
import { parseModelSpec } from "../model/model_spec.ts";
import type { Kit } from "../kit/kit_store.ts";
import { EVENT, event, type EventPayload } from "../store/event_catalogue.ts";
import { ZERO_COUNTERS } from "../store/run_counters.ts";
import type { AgentOutcome } from "./agent.ts";
import type { InstalledAgent } from "./cmd_agent.ts";
import { type InstalledRun, readyAhead, runInstalled } from "./_installed_run.ts";

/** Where an installed agent's kit (its binary) appears in its container, read-only. */
export const KIT_MOUNT = "/verdict/kit";

/** Most bytes of the CLI's stdout (its transcript) and stderr the record keeps. */
export const MAX_TRANSCRIPT_BYTES = 32 * 1024 * 1024;

/** How one CLI is run and read. */
export interface KitAgentRecipe {
  /** What to run, the instruction being in `$VERDICT_INSTRUCTION_FILE`. */
  run: Omit<InstalledRun, "maxOutputBytes">;
  /** Reads the CLI's stdout into transcript steps. */
  read(stdout: string): Omit<EventPayload<typeof EVENT.agentTranscript>, "agent">;
}

/** The installed agent of `kit`, run and read as `recipe` says. */
export function kitAgent(kit: Kit, recipe: KitAgentRecipe): InstalledAgent {
  return {
    name: `${kit.agent}@${kit.version}`,
    files: null,
    mounts: [{ source: kit.folder, target: KIT_MOUNT, readOnly: true }],
    gateway: true,
    // The kit's files by their checksums, as it was stored.
    digest: () =>
      Promise.resolve(sha256Hex(canonicalJson({
        binary: kit.sha256,
        companions: kit.companions.map(({ name, sha256 }) => ({ name, sha256 })),
      }))),
    // A statically linked binary runs in any image; a dynamically linked one needs its loader.
    ...(kit.interpreter === null ? {} : {
      probe: {
        command: `${KIT_MOUNT}/${kit.binary} --version`,
        needs: `the C library it is linked against (its loader ${kit.interpreter})`,
      },
    }),
    readyAhead: (container, task, signal) =>
      readyAhead(container, task.instruction, recipe.run.homes ?? [], signal),
    async run(context): Promise<AgentOutcome> {
      const { result, stopReason } = await runInstalled(context, {
        ...recipe.run,
        maxOutputBytes: MAX_TRANSCRIPT_BYTES,
      });
      const transcript = recipe.read(result.stdout);
      context.record([event(EVENT.agentTranscript, { agent: kit.agent, ...transcript })]);
      const toolCalls = transcript.steps.filter((step) => step.type === "tool_call").length;
      const said = transcript.steps.flatMap((step) =>
        step.type === "message" && step.text.trim() !== "" ? [step.text.trim()] : []
      ).at(-1);
      return {
        stopReason,
        counters: { ...ZERO_COUNTERS, toolCalls, finished: stopReason === "completed" },
        tokens: { input: 0, output: 0 },
        detail: stopReason === "error"
          ? `${kit.agent} exited ${result.exitCode}${
            said ? `: ${said.replace(/\s+/g, " ").slice(0, 200)}` : ""
          }`
          : undefined,
      };
    },
  };
}

/**
 * The model name a CLI is told to use: the name in `--model PROVIDER:NAME` when PROVIDER is the
 * one the CLI speaks, none for the scripted model (the CLI's own default is sent, and answered by
 * the gateway's scripted model) or a replay (which sends what the record's run sent).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { cliModelName } from "./_kit_agent.ts";
 * assert.equal(cliModelName("anthropic:claude-sonnet-4-5", "anthropic", "claude-code"), "claude-sonnet-4-5");
 * assert.equal(cliModelName("scripted", "anthropic", "claude-code"), null);
 * assert.throws(() => cliModelName("openai:gpt-5", "anthropic", "claude-code"), /speaks anthropic/);
 * ```
 * @throws {UsageError} when `--model` names a provider of another wire format.
 */
export function cliModelName(
  spec: string,
  provider: "anthropic" | "openai",
  agent: string,
): string | null {
  const parsed = parseModelSpec(spec);
  if (parsed.kind !== "anthropic" && parsed.kind !== "openai") return null;
  if (parsed.kind !== provider) {
    throw new UsageError(
      `--agent ${agent} speaks ${provider}'s API, so --model ${spec} cannot answer it: give ` +
        `--model ${provider}:MODEL, or --model scripted`,
    );
  }
  return parsed.model;
}
