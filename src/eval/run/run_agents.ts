/**
 * The agents a run takes, each given once: a name of the registry (`loop`, `oracle`, `nop`, an
 * installed agent, `cmd:COMMAND`), built here for each model it is swept over; Verdict's loop
 * driven by a model of your own ({@linkcode loopWithModel}); or an agent of your own
 * ({@linkcode RunAgent}). Every agent is checked, and every one built, before any run starts.
 *
 * @module
 */
import type { Agent, TrialAgent } from "../../agent/agent.ts";
import { CMD_PREFIX } from "../../agent/cmd_agent.ts";
import { loopAgent } from "../../agent/loop_agent.ts";
import type { Clock } from "../../core/clock.ts";
import { UsageError } from "../../core/errors.ts";
import type { Model } from "../../model/model.ts";
import type { ProviderOptions } from "../../model/provider_options.ts";
import { heuristicCounter } from "../../model/tokens.ts";
import { DEFAULT_POLICY } from "../../policy/default_policy.ts";
import type { Task } from "../../task/task.ts";
import { BUILTIN_TOOLS } from "../../tools/builtin_tools.ts";
import {
  type AgentKind,
  agentKind,
  type AgentNeeds,
  recordedAgentKind,
  takesModel,
} from "../setup/agent_registry.ts";
import type { LoopSettings } from "../setup/loop_settings.ts";
import { setupLoopAgent } from "../setup/loop_setup.ts";
import type { CrashHook, TrialGatewayFactory } from "../trial/trial_plan.ts";
import type { SessionDriver } from "../trial/session_driver.ts";

/**
 * An agent for a run, with what the run records about it: its name, model and settings are part
 * of the run id. An agent of your own needs only `agent`.
 *
 * @example An agent of your own
 * ```ts
 * import assert from "node:assert/strict";
 * import type { RunAgent } from "./run_agents.ts";
 * const mine: RunAgent = {
 *   agent: {
 *     name: "give-up",
 *     run: () =>
 *       Promise.resolve({
 *         stopReason: "completed",
 *         counters: {
 *           steps: 0, toolCalls: 0, compactions: 0, deniedCalls: 0, totalTokens: 0,
 *           costUsd: null, finished: true, resumed: false,
 *         },
 *         tokens: { input: 0, output: 0 },
 *       }),
 *   },
 * };
 * assert.equal(mine.agent.name, "give-up");
 * ```
 */
export interface RunAgent {
  /** The agent; its `name` is recorded as the run's agent. */
  agent: TrialAgent;
  /** The model spec it runs with, recorded; absent or null for an agent that uses none. */
  model?: string | null;
  /** The loop's settings, recorded; absent or null for other agents. */
  settings?: LoopSettings | null;
  /**
   * What it needs. Absent: what the registry's agent of that name needs, else a model when
   * `model` is given.
   */
  needs?: AgentNeeds;
}

/**
 * How Verdict's loop agent is set up for the agents a model drives (`eval`'s flags of the same
 * names). API keys come from `env`, and go only into request headers.
 *
 * @example Priced models with a policy of your own
 * ```ts
 * import assert from "node:assert/strict";
 * import type { LoopOptions } from "./run_agents.ts";
 * const loop: LoopOptions = { pricesFile: "prices.yaml", policyFile: "policy.yaml" };
 * assert.equal(loop.noCost, undefined);
 * ```
 */
export interface LoopOptions {
  /** `--base-url`: the model endpoint (default `$OPENAI_BASE_URL` or `$ANTHROPIC_BASE_URL`). */
  baseUrl?: string;
  /** `--prices FILE`: model prices. */
  pricesFile?: string;
  /** `--no-cost`: run a model without a price; its cost is recorded as unknown. */
  noCost?: boolean;
  /** `--policy FILE`: the policy of every task whose manifest says `policy: default`. */
  policyFile?: string;
  /** `--request-timeout`, in ms (default ten minutes). */
  requestTimeoutMs?: number;
  /** `--temperature`, `--max-output-tokens`, `--reasoning-effort`, `--header`, `--retries`. */
  providerOptions?: ProviderOptions;
  /** Where keys and base URLs are read (default the process's environment). */
  env?: (name: string) => string | undefined;
}

/**
 * Verdict's loop agent driven by a model of your own: the built-in tools, the default policy,
 * cost unknown. The run records the agent as `loop` and the model by its `spec`.
 *
 * @example A model that finishes at once
 * ```ts
 * import assert from "node:assert/strict";
 * import { loopWithModel } from "./run_agents.ts";
 * const agent = loopWithModel({
 *   spec: "finish-now",
 *   remote: false,
 *   complete: () =>
 *     Promise.resolve({
 *       content: "",
 *       toolCalls: [{ id: "c1", name: "finish", arguments: JSON.stringify({ summary: "done" }) }],
 *       finish: "tool_calls",
 *       usage: { input: 1, cachedInput: 0, output: 1 },
 *     }),
 * });
 * assert.equal(agent.agent.name, "loop");
 * assert.equal(agent.model, "finish-now");
 * ```
 */
export function loopWithModel(model: Model): RunAgent {
  const agent = loopAgent({
    createModel: () => Promise.resolve(model),
    policyFor: () => DEFAULT_POLICY,
    priceFor: () => null,
    counter: heuristicCounter,
  });
  return {
    agent,
    model: model.spec,
    settings: {
      base_url: null,
      policy: "default",
      prices_file: null,
      prices_sha256: null,
      cost: "unknown",
      tools: BUILTIN_TOOLS.map((tool) => tool.schema.name),
    },
  };
}

/** An agent ready to run: what the run records, and the trial's hooks. */
export interface PlannedAgent {
  /** The agent. */
  agent: Agent;
  /** The model spec, canonical; null for agents that use none. */
  model: string | null;
  /** The loop's settings, without secrets; null for other agents. */
  settings: LoopSettings | null;
  /** What it needs. */
  needs: AgentNeeds;
  /** The crash knob's hook, for the trial's own crash point. */
  crash?: CrashHook;
  /** Each trial's model gateway, for an installed agent. */
  gateway?: TrialGatewayFactory;
  /** The agent re-driven through a trial's record first (the loop agent), for a moved trial. */
  follow?: (driver: SessionDriver) => Agent;
}

/**
 * A run's agent as given: a name of the registry, or an agent of your own.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { nopAgent } from "../../agent/nop.ts";
 * import type { AgentChoice } from "./run_agents.ts";
 * const agents: AgentChoice[] = ["oracle", "claude-code@2.0.0", "cmd:./agent.sh", { agent: nopAgent }];
 * assert.equal(agents.length, 4);
 * ```
 */
export type AgentChoice = string | RunAgent;

/** What planning the agents of a sweep takes. */
export interface AgentsPlan {
  /** The agents, in order. */
  agents: readonly AgentChoice[];
  /** The models each agent a model drives is run with (default `scripted`). */
  models?: readonly string[];
  /** How the loop agent is set up. */
  loop?: LoopOptions;
  /** `--agent-files DIR`: the `cmd:` agents' own program. */
  agentFiles?: string;
  /** The state folder (installed agents' kits, `replay:` models' records). */
  home: string;
  /** Repeats per task (a `replay:RUN` model must cover them). */
  repeat: number;
}

/** What building agents may call back. */
export interface PlanHooks {
  /** The clock of the loop's retries and request timeouts. */
  clock: Clock;
  /** What the scripted model's crash knob does at its point (print, then die). */
  onCrash?: (point: string, step: number) => Promise<void>;
  /** Told of a model an agent is not run with, because it speaks another provider's API. */
  passedOver?: (agent: string, model: string, speaks: string) => void;
}

/**
 * Each agent of the registry a name gives (the agents of your own as they are), checked before
 * anything is loaded or built.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { resolveAgents } from "./run_agents.ts";
 * assert.throws(() => resolveAgents(["nop", "robot"], { home: ".verdict" }), /robot is not an agent/);
 * ```
 * @throws {UsageError} naming an agent the registry does not know (exit 2).
 */
export function resolveAgents(
  agents: readonly AgentChoice[],
  options: { agentFiles?: string; home: string },
): (AgentKind | RunAgent)[] {
  return agents.map((agent) =>
    typeof agent === "string"
      ? agentKind(agent, {
        agentFiles: agent.startsWith(CMD_PREFIX) ? options.agentFiles : undefined,
        home: options.home,
      })
      : agent
  );
}

/**
 * Builds every agent of a sweep over `tasks`: an agent a model drives once per model it can
 * take (each model it cannot take passed over, unless it can take none: its build says why),
 * every other agent once; an agent of your own as it is.
 *
 * @throws {UsageError} when models are given and no agent takes one, a provider option applies
 * to none of the agents, or an agent cannot be built (exit 2).
 */
export async function planAgents(
  plan: AgentsPlan,
  tasks: readonly Task[],
  hooks: PlanHooks,
): Promise<PlannedAgent[]> {
  const resolved = resolveAgents(plan.agents, plan);
  const provider = plan.loop?.providerOptions ?? {};
  if (plan.models !== undefined && !resolved.some((entry) => needsOf(entry).model)) {
    const names = plan.agents.map((agent) => typeof agent === "string" ? agent : agent.agent.name);
    throw new UsageError(
      `--model is for agents driven by a model; --agent ${names.join(", ")} uses none`,
    );
  }
  requireProviderOptionsApply(provider, resolved);
  const models = plan.models ?? ["scripted"];
  const planned: PlannedAgent[] = [];
  for (const entry of resolved) {
    if (!isKind(entry)) {
      planned.push({
        agent: entry.agent,
        model: entry.model ?? null,
        settings: entry.settings ?? null,
        needs: needsOf(entry),
      });
      continue;
    }
    const offered = entry.needs.model ? models : [models[0]];
    const taken = offered.filter((model) => takesModel(entry, model));
    for (const model of taken.length > 0 ? taken : offered) {
      const built = await entry.build(() =>
        setupLoopAgent({
          model,
          baseUrl: plan.loop?.baseUrl,
          pricesFile: plan.loop?.pricesFile,
          noCost: plan.loop?.noCost === true,
          policyFile: plan.loop?.policyFile,
          env: plan.loop?.env ?? ((name) => Deno.env.get(name)),
          clock: hooks.clock,
          requestTimeoutMs: plan.loop?.requestTimeoutMs,
          providerOptions: provider,
          onCrash: hooks.onCrash,
          home: plan.home,
          repeat: plan.repeat,
        }, tasks)
      );
      planned.push({
        agent: built.agent,
        model: built.model,
        settings: built.settings,
        needs: entry.needs,
        crash: built.crash,
        gateway: built.gateway,
        ...(built.loop === undefined ? {} : { follow: built.loop.following }),
      });
    }
    for (const model of taken.length > 0 ? offered.filter((m) => !taken.includes(m)) : []) {
      hooks.passedOver?.(entry.name, model, entry.speaks!);
    }
  }
  return planned;
}

/** The needs an agent given once has: its own, the registry's of its name, or a model's. */
export function needsOf(entry: AgentKind | RunAgent): AgentNeeds {
  if (isKind(entry)) return entry.needs;
  return entry.needs ?? recordedAgentKind(entry.agent.name, false)?.needs ??
    { model: (entry.model ?? null) !== null, solutions: false };
}

function isKind(entry: AgentKind | RunAgent): entry is AgentKind {
  return "build" in entry;
}

/** Each provider option by its flag, in the order `eval --help` lists them. */
const PROVIDER_FLAGS: readonly [keyof ProviderOptions, string][] = [
  ["temperature", "temperature"],
  ["maxOutputTokens", "max-output-tokens"],
  ["reasoningEffort", "reasoning-effort"],
  ["headers", "header"],
  ["retries", "retries"],
];

/** The options only Verdict's own loop uses: an installed agent chooses its own sampling. */
const LOOP_ONLY = ["temperature", "max-output-tokens", "reasoning-effort"];

/**
 * Refuses provider options no agent of the run takes: any of them when no agent is driven by a
 * model (`nop`, `oracle`), and the sampling ones when every agent is an installed one (a cmd: or a
 * kit agent sends its own requests; only `--header` and `--retries` reach them, through the
 * gateway).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { requireProviderOptionsApply } from "./run_agents.ts";
 * import { agentKind } from "../setup/agent_registry.ts";
 * assert.throws(
 *   () => requireProviderOptionsApply({ temperature: 0.5 }, [agentKind("nop")]),
 *   /--temperature is for agents driven by a model/,
 * );
 * ```
 * @throws {UsageError} naming the flag and the agents.
 */
export function requireProviderOptionsApply(
  options: ProviderOptions,
  agents: readonly (AgentKind | RunAgent)[],
): void {
  const given = PROVIDER_FLAGS.filter(([key]) => options[key] !== undefined)
    .map(([, flag]) => flag);
  const names = agents.map((entry) => isKind(entry) ? entry.name : entry.agent.name).join(", ");
  const needs = agents.map(needsOf);
  if (given.length > 0 && !needs.some((need) => need.model)) {
    throw new UsageError(
      `--${given[0]} is for agents driven by a model; --agent ${names} uses none`,
    );
  }
  const sampling = given.find((name) => LOOP_ONLY.includes(name));
  if (sampling !== undefined && needs.every((need) => !need.model || need.gateway)) {
    throw new UsageError(
      `--${sampling} is for Verdict's loop agent; --agent ${names} sends its own requests and ` +
        "chooses its own sampling (only --header and --retries reach them); drop it",
    );
  }
}
