/**
 * What the user chose for the loop agent ({@linkcode LoopChoices}: `--model`, prices, policy,
 * provider options), what a run assembles from it ({@linkcode LoopSetup}), and the choices read
 * back from a run's record ({@linkcode recordedChoices}) for resume and replay.
 *
 * @module
 */
import type { Agent } from "../../agent/agent.ts";
import type { Clock } from "../../core/clock.ts";
import type { Price } from "../../model/prices.ts";
import type { ProviderOptions } from "../../model/provider_options.ts";
import type { SessionDriver } from "../trial/session_driver.ts";
import type { CrashHook, TrialGatewayFactory } from "../trial/trial_plan.ts";
import type { LoopSettings } from "./loop_settings.ts";

/** What the user chose for the loop agent. */
export interface LoopChoices {
  /** `--model`. */
  model: string;
  /** `--base-url`. */
  baseUrl?: string;
  /** `--prices FILE`. */
  pricesFile?: string;
  /** `--no-cost`. */
  noCost: boolean;
  /** `--policy FILE`: the policy of every task whose manifest says `policy: default`. */
  policyFile?: string;
  /** Environment variables it may read: keys and base URLs. */
  env: (name: string) => string | undefined;
  /** The injected clock (retry waits, request timeouts). */
  clock: Clock;
  /** `--request-timeout`, in ms: the longest one model request may take (default 10 minutes). */
  requestTimeoutMs?: number;
  /** What the scripted model's crash knob does at its point (print, then die). */
  onCrash?: (point: string, step: number) => Promise<void>;
  /** Building it for replay: no model will be called, so no key is needed. */
  forReplay?: boolean;
  /** The state directory: where `--model replay:RUN|SESSION` finds its record. */
  home?: string;
  /** `--repeat`: the repeats a `replay:RUN` record must cover (default 1). */
  repeat?: number;
  /** `--temperature`, `--max-output-tokens`, `--reasoning-effort`, `--header`, `--retries`. */
  providerOptions?: ProviderOptions;
}

/** The assembled agent and what the run records about it. */
export interface LoopSetup {
  /** The agent. */
  agent: Agent;
  /** The model spec, canonical. */
  model: string;
  /** Settings that shape trajectories, without secrets: recorded and part of the run id. */
  settings: LoopSettings;
  /** What a model call costs; null when its cost is unknown (`--no-cost`). */
  price: Price | null;
  /** The crash knob's hook, for the trial's own crash point (`grading`). */
  crash?: CrashHook;
  /** The same agent, following a recorded session first (resume). */
  following(driver: SessionDriver): Agent;
  /** The same agent answered only by a record (replay); `liveTools` runs the tools for real. */
  replaying(driver: SessionDriver, liveTools: boolean): Agent;
  /**
   * Each trial's model gateway, for an installed agent: the same model and prices behind the
   * gateway; undefined for `replay:` models, which answer Verdict's own loop only.
   */
  gateway?: TrialGatewayFactory;
}

/**
 * The choices a run was made with, read back from its recorded model and settings (the inverse of
 * {@linkcode LoopSetup.settings}), for resume and replay.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { recordedChoices } from "./loop_choices.ts";
 * const choices = recordedChoices({
 *   model: "scripted",
 *   repeat: 1,
 *   settings: {
 *     base_url: null, policy: "default", prices_file: null, prices_sha256: null, cost: "unknown",
 *     tools: [],
 *   },
 * });
 * assert(choices.noCost && choices.policyFile === undefined);
 * ```
 */
export function recordedChoices(
  config: { model: string | null; settings: LoopSettings | null; repeat: number },
): Pick<
  LoopChoices,
  "model" | "baseUrl" | "pricesFile" | "noCost" | "policyFile" | "repeat" | "providerOptions"
> {
  const settings = config.settings;
  const provider = settings?.provider_options;
  return {
    model: config.model ?? "scripted",
    repeat: config.repeat,
    baseUrl: settings?.base_url ?? undefined,
    pricesFile: settings?.prices_file ?? undefined,
    noCost: settings?.cost === "unknown",
    policyFile: settings === null || settings.policy === "default" ? undefined : settings.policy,
    ...(provider
      ? {
        providerOptions: {
          temperature: provider.temperature,
          maxOutputTokens: provider.max_output_tokens,
          reasoningEffort: provider.reasoning_effort,
          headers: provider.headers,
          retries: provider.retries,
        },
      }
      : {}),
  };
}
