/**
 * Codex CLI as an installed agent (`--agent codex[@VERSION]`): its kit's binary runs
 * `codex exec` (the prompt on stdin, approvals and its own sandbox bypassed: the trial's container
 * is the sandbox, a JSON-lines transcript on stdout) as the agent user. `OPENAI_BASE_URL` alone does not move it,
 * so a config in its own `CODEX_HOME` names the trial's gateway as a custom provider speaking the
 * Responses API, with no retries of its own (the gateway retries the upstream; Codex does not obey
 * `x-should-retry: false`, and its retries would multiply the gateway's), no update check, no
 * analytics or plugins, and no unbounded connection retries (else an unreachable gateway is
 * retried forever).
 *
 * @module
 */
import { GATEWAY_PORT } from "../gateway/sidecar.ts";
import type { Kit } from "../kit/kit_store.ts";
import { readCodexTranscript } from "./codex_transcript.ts";
import type { InstalledAgent } from "./cmd_agent.ts";
import { cliModelName, KIT_MOUNT, kitAgent } from "./_kit_agent.ts";

/** The provider API Codex CLI speaks (a `--model` of another provider cannot drive it). */
export const CODEX_API = "openai";

/**
 * The model Codex is told to use when `--model` names no provider's model (the scripted model):
 * with its own default it sends no tools at all (that model's tools come from a catalogue it
 * cannot fetch offline), so it is given one whose fallback offers its shell tool.
 */
export const OFFLINE_CODEX_MODEL = "gpt-5-codex";

/**
 * Codex's home (`CODEX_HOME`) in its container: the agent user's, outside the workspace and
 * outside `/tmp` (under a temporary folder Codex refuses to make its helper commands, such as
 * `apply_patch`).
 */
export const CODEX_HOME = "/verdict/home/codex";

/**
 * The `config.toml` that points Codex at the trial's gateway, with `model` when `--model` names
 * one (else {@linkcode OFFLINE_CODEX_MODEL}).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { codexConfig } from "./codex_agent.ts";
 * assert.match(codexConfig("gpt-5"), /^model = "gpt-5"$/m);
 * assert.match(codexConfig(null), /^model = "gpt-5-codex"$/m);
 * assert.match(codexConfig(null), /wire_api = "responses"/);
 * ```
 */
export function codexConfig(model: string | null): string {
  return [
    `model = ${JSON.stringify(model ?? OFFLINE_CODEX_MODEL)}`,
    `model_provider = "verdict"`,
    "check_for_update_on_startup = false",
    "",
    "[model_providers.verdict]",
    `name = "Verdict gateway"`,
    `base_url = "http://127.0.0.1:${GATEWAY_PORT}/v1"`,
    `env_key = "OPENAI_API_KEY"`,
    `wire_api = "responses"`,
    "request_max_retries = 0",
    "stream_max_retries = 0",
    "",
    "[analytics]",
    "enabled = false",
    "",
    "[features]",
    "unbounded_connection_retries = false",
    "plugins = false",
    "",
  ].join("\n");
}

/**
 * The Codex CLI agent of `kit`, told the model `--model openai:NAME` names (its own default for
 * the scripted model).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { codexAgent } from "./codex_agent.ts";
 * const kit = {
 *   agent: "codex", version: "0.171.0", folder: "/kits/codex/0.171.0", binary: "codex",
 *   sha256: "", size: 1, interpreter: null, packages: [], companions: [],
 * };
 * assert.equal(codexAgent(kit, "scripted").name, "codex@0.171.0");
 * ```
 * @throws {UsageError} when `model` names an Anthropic model (Codex speaks OpenAI's API).
 */
export function codexAgent(kit: Kit, model: string): InstalledAgent {
  const args = [
    "exec",
    "--skip-git-repo-check",
    "--dangerously-bypass-approvals-and-sandbox",
    "--json",
    "-",
  ];
  return kitAgent(kit, {
    run: {
      command: `codex ${args.join(" ")}`,
      // Its npm wrapper puts the kit's `path/` (ripgrep) first on PATH; so does this.
      line: (clock) =>
        `${
          kit.companions.some((file) => file.name.startsWith("path/"))
            ? `PATH="${KIT_MOUNT}/path:$PATH" `
            : ""
        }exec ${clock}${KIT_MOUNT}/${kit.binary} ${args.join(" ")}`,
      files: {
        [`${CODEX_HOME}/config.toml`]: codexConfig(cliModelName(model, CODEX_API, kit.agent)),
      },
      env: { CODEX_HOME },
      homes: [CODEX_HOME],
      instructionOnStdin: true,
      // Its ids (user, session, thread, turn, items, cache key); the date in its prompt, from
      // its own clock, which libfaketime cannot set in a static binary (the commands it runs
      // read the run's start); what its shell tool adds to a command's output.
      replayMasks: [
        "end-user-id",
        "prompt-cache-key",
        "request-metadata",
        "codex-client-metadata",
        "input-item-ids",
        "current-date",
        "chunk-id",
        "wall-time",
      ],
    },
    read: readCodexTranscript,
  });
}
