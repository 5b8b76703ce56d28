/**
 * The agents `--agent` can name, in one registry: how each is built, and what it needs (a model,
 * the tasks' reference solutions). `eval` builds from it by the name given, `resume` by the name
 * the run recorded, and the run's configuration records what the agent needs as structured
 * fields.
 *
 * @module
 */
import { z } from "zod";
import type { Agent } from "../agent/agent.ts";
import { CMD_PREFIX, cmdAgent } from "../agent/cmd_agent.ts";
import { nopAgent } from "../agent/nop.ts";
import { oracleAgent } from "../agent/oracle.ts";
import { UsageError } from "../core/errors.ts";
import type { LoopSetup } from "./loop_setup.ts";
import type { LoopSettings } from "./loop_settings.ts";
import type { CrashHook } from "./trial.ts";
import type { TrialGatewayFactory } from "./trial_gateway.ts";

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
  /** Builds it; `loop` assembles the loop agent (called only by the agents that need a model). */
  build(loop: () => Promise<LoopSetup>): Promise<BuiltAgent>;
}

const fixed = (agent: Agent) => () =>
  Promise.resolve<BuiltAgent>({ agent, model: null, settings: null });

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

/** What building an agent may take besides its name. */
export interface AgentOptions {
  /** The installed agent's own files (`--agent-files DIR`), mounted read-only in its container. */
  agentFiles?: string;
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
      if (setup.gateway === undefined) {
        throw new UsageError(
          `--model ${setup.model} answers Verdict's own loop only; an installed agent needs ` +
            `--model scripted or a provider's model (openai:MODEL, anthropic:MODEL)`,
        );
      }
      return { agent, model: setup.model, settings: setup.settings, gateway: setup.gateway };
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
 * assert.throws(() => agentKind("gpt"), /use loop, oracle or nop, or cmd:COMMAND/);
 * assert(agentKind("cmd:sh /verdict/agent/run.sh").needs.gateway);
 * ```
 * @throws {UsageError} when no agent has that name (exit 2), listing the known ones.
 */
export function agentKind(name: string, options: AgentOptions = {}): AgentKind {
  if (name.startsWith(CMD_PREFIX)) return cmdAgentKind(name, options);
  const kind = recordedAgentKind(name, false);
  if (kind === undefined) {
    const names = AGENTS.map((agent) => agent.name);
    throw new UsageError(
      `--agent ${name} is not an agent: use ${names.slice(0, -1).join(", ")} or ${names.at(-1)}` +
        `, or ${CMD_PREFIX}COMMAND for an installed agent`,
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
export function recordedAgentKind(name: string, legacy = true): AgentKind | undefined {
  if (name.startsWith(CMD_PREFIX) && name.length > CMD_PREFIX.length) return cmdAgentKind(name, {});
  const bare = legacy ? name.replace(/ \(tasks check\)$/, "") : name;
  return AGENTS.find((agent) => agent.name === bare);
}
