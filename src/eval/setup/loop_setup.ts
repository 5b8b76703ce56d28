/**
 * Assembling the loop agent for a run: the model from its spec (scripted, OpenAI-compatible,
 * Anthropic), prices, policies, and the settings recorded with the run. API keys come in here and
 * go only into request headers: never into the settings, the store, a log or a report.
 *
 * @module
 */
import { EVENT, event, type EventPayload } from "../../store/event_catalogue.ts";
import type { Agent } from "../../agent/agent.ts";
import { loopAgent } from "../../agent/loop_agent.ts";
import type { Clock } from "../../core/clock.ts";
import { UsageError } from "../../core/errors.ts";
import { readInputFile } from "../../core/input_file.ts";
import { sha256Hex } from "../../core/hash.ts";
import { ANTHROPIC_DEFAULT_BASE_URL, anthropicModel } from "../../model/anthropic.ts";
import { DEFAULT_REQUEST_TIMEOUT_MS } from "../../model/_http.ts";
import type { Model } from "../../model/model.ts";
import { formatModelSpec, type ModelSpec, parseModelSpec } from "../../model/model_spec.ts";
import { OPENAI_DEFAULT_BASE_URL, openAiModel } from "../../model/openai.ts";
import { parsePrices, type Price, SCRIPTED_PRICE } from "../../model/prices.ts";
import {
  checkProviderOptions,
  type ProviderOptions,
  recordedHeaders,
  requestParameters,
  retryPolicy,
} from "../../model/provider_options.ts";
import { REDACTED } from "../../model/redaction.ts";
import { scriptedModel } from "../../model/scripted.ts";
import { heuristicCounter } from "../../model/tokens.ts";
import { DEFAULT_POLICY } from "../../policy/default_policy.ts";
import type { Policy } from "../../policy/policy.ts";
import { loadPolicy } from "../../policy/policy_file.ts";
import type { Task } from "../../task/task.ts";
import { BUILTIN_TOOLS } from "../../tools/builtin_tools.ts";
import type { LoopSettings, ProviderSettings } from "./loop_settings.ts";
import { loadReplaySource } from "./replay_model.ts";
import type { SessionDriver } from "../trial/session_driver.ts";
import { type GatewayModel, trialGateways } from "./gateway_setup.ts";
import type { CrashHook } from "../trial/trial.ts";
import type { TrialGatewayFactory } from "../trial/trial_gateway.ts";

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
 * Builds the loop agent for a run over `tasks`.
 *
 * @throws {UsageError} for a bad spec, a missing key, or a real model with no price and no
 * `--no-cost` (exit 2, before any call); an `InputError` for a bad prices or policy file.
 */
export async function setupLoopAgent(
  choices: LoopChoices,
  tasks: readonly Task[],
): Promise<LoopSetup> {
  const spec = parseModelSpec(choices.model);
  const provider = choices.providerOptions ?? {};
  checkOptionsFor(spec, provider, choices.forReplay === true);
  const replay = spec.kind === "replay"
    ? loadReplaySource(choices.home, spec.source, tasks, choices.repeat ?? 1)
    : undefined;
  const model = replay?.spec ?? formatModelSpec(spec);
  // A replay is priced as the model whose responses it replays.
  const priced = replay?.recordedModel ?? model;
  let prices = new Map<string, Price>();
  let pricesDigest: string | null = null;
  if (choices.pricesFile !== undefined) {
    const text = await readInputFile(choices.pricesFile, "--prices");
    prices = parsePrices(text, choices.pricesFile);
    pricesDigest = sha256Hex(text);
  }
  const price: Price | null = choices.noCost ? null : prices.get(priced) ??
    (parseModelSpec(priced).kind === "scripted" ? prices.get("scripted") ?? SCRIPTED_PRICE : null);
  if (price === null && !choices.noCost) {
    throw new UsageError(
      `no price for ${priced}: pass --prices FILE with an entry '${priced}: { input: N, output: N, ` +
        `cached_input: N }' (USD per million tokens), or --no-cost to run with the cost unknown`,
    );
  }
  const taskPolicies = new Map<string, Policy>();
  const override = choices.policyFile === undefined
    ? DEFAULT_POLICY
    : await loadPolicy(choices.policyFile);
  for (const task of tasks) {
    taskPolicies.set(
      task.id,
      task.policyPath === "default" ? override : await loadPolicy(task.policyPath),
    );
  }

  let baseUrl: string | null = null;
  let createModel: (context: Parameters<Agent["run"]>[0]) => Promise<Model>;
  let gatewayModel: GatewayModel | undefined;
  if (spec.kind === "scripted") {
    gatewayModel = { kind: "scripted", faults: spec.faults };
    createModel = (context) =>
      scriptedModel({
        task: context.task,
        rng: context.rng.stream("model"),
        faults: spec.faults,
        counter: heuristicCounter,
      });
  } else if (spec.kind === "openai" || spec.kind === "anthropic") {
    const openai = spec.kind === "openai";
    const keyName = openai ? "OPENAI_API_KEY" : "ANTHROPIC_API_KEY";
    const apiKey = choices.env(keyName) ?? "";
    if (!openai && apiKey === "" && !choices.forReplay) {
      throw new UsageError(`${model} needs an API key: set ANTHROPIC_API_KEY`);
    }
    baseUrl = choices.baseUrl ?? choices.env(openai ? "OPENAI_BASE_URL" : "ANTHROPIC_BASE_URL") ??
      (openai ? OPENAI_DEFAULT_BASE_URL : ANTHROPIC_DEFAULT_BASE_URL);
    if (!/^https?:\/\/[^/]/.test(baseUrl)) {
      throw new UsageError(
        `base URL '${withoutCredentials(baseUrl)}' must start with http:// or https://`,
      );
    }
    const url = baseUrl;
    const headers = provider.headers ?? {};
    const retry = retryPolicy(provider.retries);
    gatewayModel = {
      kind: "live",
      upstream: { provider: spec.kind, model: spec.model, baseUrl: url, apiKey, headers },
      http: {
        clock: choices.clock,
        retry,
        requestTimeoutMs: choices.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
      },
    };
    createModel = (context) => {
      const http = {
        clock: choices.clock,
        rng: context.rng.stream("retry"),
        retry,
        requestTimeoutMs: choices.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
        secrets: [], // each provider redacts its own key and base-URL credentials
        onRetry: (attempt: EventPayload<typeof EVENT.modelRetry>) =>
          context.record([event(EVENT.modelRetry, attempt)]),
      };
      return Promise.resolve(
        openai
          ? openAiModel({ model: spec.model, baseUrl: url, apiKey, headers }, http)
          : anthropicModel({ model: spec.model, baseUrl: url, apiKey, headers }, http),
      );
    };
  } else {
    createModel = (context) => replay!.model(context);
  }

  const settings: LoopSettings = {
    base_url: baseUrl === null ? null : withoutCredentials(baseUrl),
    policy: choices.policyFile ?? "default",
    prices_file: choices.pricesFile ?? null,
    prices_sha256: pricesDigest,
    cost: choices.noCost ? "unknown" : "priced",
    tools: BUILTIN_TOOLS.map((tool) => tool.schema.name),
    ...(replay ? { replay: replay.settings } : {}),
    ...providerSettings(provider),
  };
  const knob = spec.kind === "scripted" ? spec.crash : null;
  const onCrash = choices.onCrash;
  const crash: CrashHook | undefined = knob && onCrash
    ? (point, step, resumed) =>
      !resumed && point === knob.point && (point === "grading" || step === knob.step)
        ? onCrash(point, step)
        : Promise.resolve()
    : undefined;
  const parameters = requestParameters(provider);
  const options = {
    createModel,
    policyFor: (task: Task) => taskPolicies.get(task.id) ?? override,
    priceFor: () => price,
    counter: heuristicCounter,
    crash,
    ...(provider.maxOutputTokens !== undefined
      ? { maxOutputTokens: provider.maxOutputTokens }
      : {}),
    ...(parameters ? { parameters } : {}),
  };
  return {
    agent: loopAgent(options),
    model,
    settings,
    crash,
    following: (driver) =>
      loopAgent({
        ...options,
        createModel: async (context) => driver.wrapModel(await createModel(context)),
        runTool: driver.runTool(true),
      }),
    price,
    gateway: gatewayModel && trialGateways(gatewayModel, price),
    replaying: (driver, liveTools) =>
      loopAgent({
        ...options,
        crash: undefined,
        createModel: () => Promise.resolve(driver.wrapModel(null)),
        runTool: liveTools ? driver.compareTool : driver.runTool(false),
      }),
  };
}

/**
 * The choices a run was made with, read back from its recorded model and settings (the inverse of
 * {@linkcode LoopSetup.settings}), for resume and replay.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { recordedChoices } from "./loop_setup.ts";
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

/** The options as recorded: only those given; nothing when none was (the run id stays as it was). */
function providerSettings(options: ProviderOptions): { provider_options?: ProviderSettings } {
  const recorded: ProviderSettings = {
    ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
    ...(options.maxOutputTokens !== undefined
      ? { max_output_tokens: options.maxOutputTokens }
      : {}),
    ...(options.reasoningEffort !== undefined ? { reasoning_effort: options.reasoningEffort } : {}),
    ...(options.headers && Object.keys(options.headers).length > 0
      ? { headers: recordedHeaders(options.headers) }
      : {}),
    ...(options.retries !== undefined ? { retries: options.retries } : {}),
  };
  return Object.keys(recorded).length > 0 ? { provider_options: recorded } : {};
}

/**
 * Refuses options the model cannot take: the provider's own limits (see `provider_options.ts`),
 * any but `--max-output-tokens` for the scripted model, which has no sampling, headers or
 * network, and a secret header whose value a record could not keep (a resumed run).
 */
function checkOptionsFor(spec: ModelSpec, options: ProviderOptions, forReplay: boolean): void {
  if (spec.kind === "openai" || spec.kind === "anthropic") {
    checkProviderOptions(spec.kind, spec.model, options);
  }
  if (spec.kind === "scripted") {
    const given = [
      options.temperature !== undefined && "--temperature",
      options.reasoningEffort !== undefined && "--reasoning-effort",
      options.headers !== undefined && Object.keys(options.headers).length > 0 && "--header",
      options.retries !== undefined && "--retries",
    ].filter((flag) => flag !== false);
    if (given.length > 0) {
      throw new UsageError(
        `${given.join(", ")}: for openai: and anthropic: models (and replay: of a run made with ` +
          `them); the scripted model takes none; drop ${given.length > 1 ? "them" : "it"}`,
      );
    }
  }
  const lost = Object.entries(options.headers ?? {}).find(([, value]) => value === REDACTED);
  if (lost && !forReplay && spec.kind !== "replay") {
    throw new UsageError(
      `--header ${lost[0]}: its value is a secret, which a run never records, so it cannot be ` +
        `sent again; run the eval again with --header ${lost[0]}:VALUE`,
    );
  }
}

/**
 * A URL without user name or password, for the record.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { withoutCredentials } from "./loop_setup.ts";
 * assert(withoutCredentials("https://u:p@h.example/v1") === "https://h.example/v1");
 * ```
 */
export function withoutCredentials(url: string): string {
  return url.replace(/^(https?:\/\/)[^/@]*@/, "$1");
}
