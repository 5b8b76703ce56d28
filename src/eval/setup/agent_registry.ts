/**
 * The agents `--agent` can name, in one registry: how each is built, and what it needs (a model,
 * the tasks' reference solutions). `eval` builds from it by the name given, `resume` by the name
 * the run recorded, and the run's configuration records what the agent needs as structured
 * fields.
 *
 * @module
 */
import { z } from "zod";
import type { Agent } from "../../agent/agent.ts";
import { CLAUDE_CODE_API, claudeCodeAgent } from "../../agent/claude_code_agent.ts";
import { CMD_PREFIX, cmdAgent } from "../../agent/cmd_agent.ts";
import { CODEX_API, codexAgent } from "../../agent/codex_agent.ts";
import { controlAgent, controlName, CONTROLS } from "../../agent/control_agents.ts";
import { nopAgent } from "../../agent/nop.ts";
import { oracleAgent } from "../../agent/oracle.ts";
import { InfrastructureError, UsageError } from "../../core/errors.ts";
import { isPlainVersion, KIT_RECIPES, kitRecipe, parseKitName } from "../../kit/kit_catalogue.ts";
import { findKit, kitsFolder } from "../../kit/kit_store.ts";
import { parseModelSpec } from "../../model/model_spec.ts";
import type { LoopSetup } from "./loop_choices.ts";
import type { LoopSettings } from "./loop_settings.ts";
import type { CrashHook } from "../trial/trial_plan.ts";
import type { TrialGatewayFactory } from "../trial/trial_plan.ts";

/** What an agent needs, recorded in the run's configuration (`agent_needs`). */
export interface AgentNeeds {
  /** A model spec (`--model`): the agent is driven by a model. */
  model: boolean;
  /** Every task's reference solution (`solution/`): the agent applies it. */
  solutions: boolean;
  /**
   * The trial's model gateway, reached from its container on loopback (an installed agent);
   * absent in runs recorded before there was one.
   */
  gateway?: boolean;
}

/** The schema of {@linkcode AgentNeeds}, for the run configuration's. */
export const AGENT_NEEDS_SCHEMA: z.ZodType<AgentNeeds> = z.object({
  model: z.boolean(),
  solutions: z.boolean(),
  gateway: z.boolean().optional(),
});

/** An agent built for a run, and what the run records about it. */
export interface BuiltAgent {
  /** The agent. */
  agent: Agent;
  /** The model spec, canonical; null for agents that use none. */
  model: string | null;
  /** Settings that shape trajectories, without secrets; null for agents that have none. */
  settings: LoopSettings | null;
  /** The crash knob's hook, for the trial's own crash point. */
  crash?: CrashHook;
  /** The loop agent's setup (following and replaying a record), for the loop agent. */
  loop?: LoopSetup;
  /** Each trial's model gateway, for an installed agent. */
  gateway?: TrialGatewayFactory;
}

/** One agent of the registry. */
export interface AgentKind {
  /** Its name, as `--agent` gives it and the run records it. */
  name: string;
  /** What it needs. */
  needs: AgentNeeds;
  /**
   * The one provider API it speaks, for an agent that cannot take another provider's model (an
   * installed CLI); absent for agents any model can drive.
   */
  speaks?: "anthropic" | "openai";
  /** Builds it; `loop` assembles the loop agent (called only by the agents that need a model). */
  build(loop: () => Promise<LoopSetup>): Promise<BuiltAgent>;
}

const fixed = (agent: Agent) => () =>
  Promise.resolve<BuiltAgent>({ agent, model: null, settings: null });

/**
 * Whether `kind` can be driven by the model `spec` names: a provider's model must be one of the
 * provider whose API the agent speaks; the scripted model and replays drive any.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { agentKind, takesModel } from "./agent_registry.ts";
 * assert(takesModel(agentKind("claude-code"), "anthropic:claude-sonnet-4-5"));
 * assert(!takesModel(agentKind("claude-code"), "openai:gpt-5"));
 * assert(takesModel(agentKind("loop"), "openai:gpt-5"));
 * ```
 */
export function takesModel(kind: AgentKind, spec: string): boolean {
  if (kind.speaks === undefined) return true;
  const { kind: provider } = parseModelSpec(spec);
  return (provider !== "openai" && provider !== "anthropic") || provider === kind.speaks;
}

/** Every agent, by name. */
export const AGENTS: readonly AgentKind[] = [
  {
    name: "loop",
    needs: { model: true, solutions: false },
    build: async (loop) => {
      const setup = await loop();
      return {
        agent: setup.agent,
        model: setup.model,
        settings: setup.settings,
        crash: setup.crash,
        loop: setup,
      };
    },
  },
  { name: "oracle", needs: { model: false, solutions: true }, build: fixed(oracleAgent) },
  { name: "nop", needs: { model: false, solutions: false }, build: fixed(nopAgent) },
];

/** The control agents of `tasks check` (`control:NAME`), which also run under `eval --agent`. */
const CONTROL_KINDS: readonly AgentKind[] = CONTROLS.map((control) => ({
  name: controlName(control),
  needs: { model: false, solutions: false },
  build: fixed(controlAgent(control)),
}));

/** What building an agent may take besides its name. */
export interface AgentOptions {
  /** The installed agent's own files (`--agent-files DIR`), copied into its container. */
  agentFiles?: string;
  /** The state folder, whose `agents/` holds the installed agents' kits. */
  home?: string;
}

/** The one installed agent that has no kit: `gateway` unavailable means the model cannot serve one. */
function requireGateway(setup: LoopSetup): NonNullable<LoopSetup["gateway"]> {
  if (setup.gateway === undefined) {
    throw new UsageError(
      `--model ${setup.model} answers Verdict's own loop only; an installed agent needs ` +
        `--model scripted or a provider's model (openai:MODEL, anthropic:MODEL)`,
    );
  }
  return setup.gateway;
}

/** An installed agent's settings: the loop's, without the loop's tools (it brings its own). */
function installedSettings(settings: LoopSettings | null): LoopSettings | null {
  if (settings === null) return null;
  const { tools: _loopTools, ...rest } = settings;
  return rest;
}

/** How each kit's agent is made, and the provider API it speaks. */
const KIT_AGENTS = {
  "claude-code": { agent: claudeCodeAgent, speaks: CLAUDE_CODE_API },
  codex: { agent: codexAgent, speaks: CODEX_API },
} as const;

/**
 * An installed agent of a kit (`claude-code`, `codex@0.171.0`): its name always carries the
 * version (the pinned one when none is given), so a run records which; building it finds the kit
 * in the state folder.
 */
function kitAgentKind(name: string, options: AgentOptions): AgentKind | undefined {
  const { agent, version } = parseKitName(name);
  const recipe = kitRecipe(agent);
  if (recipe === undefined || (version !== null && !isPlainVersion(version))) return undefined;
  const pinned = version ?? recipe.defaultVersion;
  const make = KIT_AGENTS[recipe.agent];
  return {
    name: `${recipe.agent}@${pinned}`,
    needs: { model: true, solutions: false, gateway: true },
    speaks: make.speaks,
    build: async (loop) => {
      const setup = await loop();
      const gateway = requireGateway(setup);
      const home = options.home;
      if (home === undefined) throw new Error(`${name} is built without a state folder`);
      const kit = await findKit(home, recipe.agent, pinned);
      if (kit === null) {
        throw new InfrastructureError(
          `no kit for ${recipe.agent} ${pinned} in ${kitsFolder(home)}: fetch it with ` +
            `'verdict agents fetch ${recipe.agent}@${pinned}', or on a machine with no network ` +
            `import its npm tarballs with 'verdict agents import FILE...'`,
        );
      }
      return {
        agent: make.agent(kit, setup.model),
        model: setup.model,
        settings: installedSettings(setup.settings),
        gateway,
      };
    },
  };
}

/**
 * The installed agent `cmd:COMMAND` (its files from `options`): it needs the trial's gateway,
 * and a model behind it.
 */
function cmdAgentKind(name: string, options: AgentOptions): AgentKind {
  const command = name.slice(CMD_PREFIX.length);
  if (command.trim() === "") {
    throw new UsageError(
      `--agent ${name} names no command: give the command line after "cmd:", such as ` +
        `--agent 'cmd:python3 /verdict/agent/agent.py'`,
    );
  }
  const agent = cmdAgent(command, options.agentFiles ?? null);
  return {
    name,
    needs: { model: true, solutions: false, gateway: true },
    build: async (loop) => {
      const setup = await loop();
      return {
        agent,
        model: setup.model,
        settings: installedSettings(setup.settings),
        gateway: requireGateway(setup),
      };
    },
  };
}

/**
 * The agent `--agent NAME` names; `cmd:COMMAND` names an installed agent.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { agentKind } from "./agent_registry.ts";
 * assert(agentKind("oracle").needs.solutions);
 * assert.throws(() => agentKind("gpt"), /use loop, oracle, nop, claude-code, codex/);
 * assert.match(agentKind("codex").name, /^codex@\d/); // the pinned version
 * assert(agentKind("cmd:sh /verdict/agent/run.sh").needs.gateway);
 * ```
 * @throws {UsageError} when no agent has that name (exit 2), listing the known ones, or an installed
 * agent's `@VERSION` is not a plain version (`codex@latest`).
 */
export function agentKind(name: string, options: AgentOptions = {}): AgentKind {
  if (name.startsWith(CMD_PREFIX)) return cmdAgentKind(name, options);
  const requested = parseKitName(name);
  const recipe = kitRecipe(requested.agent);
  if (recipe !== undefined && requested.version !== null && !isPlainVersion(requested.version)) {
    throw new UsageError(
      `--agent ${name} names no version Verdict can use: give one such as ` +
        `${recipe.agent}@${recipe.defaultVersion} (the pinned one), or one that ` +
        `'verdict agents list' shows`,
    );
  }
  const kind = recordedAgentKind(name, false, options);
  if (kind === undefined) {
    const names = [...AGENTS.map((agent) => agent.name), ...KIT_RECIPES.map((kit) => kit.agent)];
    throw new UsageError(
      `--agent ${name} is not an agent: use ${names.join(", ")} (NAME@VERSION for another ` +
        `version of an installed one), or ${CMD_PREFIX}COMMAND for a program of your own`,
    );
  }
  return kind;
}

/**
 * The agent a run recorded, or undefined when none of the registry has that name. Runs that
 * `tasks check` of verdict 0.1.0 recorded name theirs with a label (`oracle (tasks check)`): with
 * `legacy`, the label's first word is the name.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { recordedAgentKind } from "./agent_registry.ts";
 * assert(recordedAgentKind("oracle (tasks check)")?.name === "oracle");
 * assert(recordedAgentKind("claude") === undefined);
 * ```
 */
export function recordedAgentKind(
  name: string,
  legacy = true,
  options: AgentOptions = {},
): AgentKind | undefined {
  if (name.startsWith(CMD_PREFIX) && name.length > CMD_PREFIX.length) {
    return cmdAgentKind(name, options);
  }
  const bare = legacy ? name.replace(/ \(tasks check\)$/, "") : name;
  return [...AGENTS, ...CONTROL_KINDS].find((agent) => agent.name === bare) ??
    kitAgentKind(bare, options);
}
