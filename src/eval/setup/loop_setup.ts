/**
 * Assembling the loop agent for a run: the model from its spec (scripted, OpenAI-compatible,
 * Anthropic, a recorded run), prices, policies, and the settings recorded with the run. API keys
 * come in here and go only into request headers: never into the settings, the store, a log or a
 * report.
 *
 * @module
 */
import { loopAgent } from "../../agent/loop_agent.ts";
import { UsageError } from "../../core/errors.ts";
import { sha256Hex } from "../../core/hash.ts";
import { readInputFile } from "../../core/input_file.ts";
import { formatModelSpec, type ModelSpec, parseModelSpec } from "../../model/model_spec.ts";
import { parsePrices, type Price, SCRIPTED_PRICE } from "../../model/prices.ts";
import {
  type ProviderOptions,
  recordedHeaders,
  requestParameters,
} from "../../model/provider_options.ts";
import { heuristicCounter } from "../../model/tokens.ts";
import { DEFAULT_POLICY } from "../../policy/default_policy.ts";
import type { Policy } from "../../policy/policy.ts";
import { loadPolicy } from "../../policy/policy_file.ts";
import type { Task } from "../../task/task.ts";
import { BUILTIN_TOOLS } from "../../tools/builtin_tools.ts";
import type { CrashHook } from "../trial/trial_plan.ts";
import { trialGateways } from "./gateway_setup.ts";
import type { LoopChoices, LoopSetup } from "./loop_choices.ts";
import { checkOptionsFor, loopModel, withoutCredentials } from "./loop_model.ts";
import type { LoopSettings, ProviderSettings } from "./loop_settings.ts";
import { loadReplaySource, type ReplaySource } from "./replay_model.ts";

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
  const { price, digest } = await runPrice(replay?.recordedModel ?? model, choices);
  const policyFor = await taskPolicies(tasks, choices.policyFile);
  const { baseUrl, createModel, gatewayModel } = loopModel(spec, model, choices, replay);
  const settings = loopSettings(choices, baseUrl, digest, replay, provider);
  const crash = crashHook(spec, choices.onCrash);
  const parameters = requestParameters(provider);
  const options = {
    createModel,
    policyFor,
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
 * What a model call costs, from `--prices` (its digest recorded) or the scripted model's built-in
 * price; null with `--no-cost`.
 *
 * @throws {UsageError} when a model has no price and `--no-cost` was not given.
 */
async function runPrice(
  priced: string,
  choices: Pick<LoopChoices, "pricesFile" | "noCost">,
): Promise<{ price: Price | null; digest: string | null }> {
  let prices = new Map<string, Price>();
  let digest: string | null = null;
  if (choices.pricesFile !== undefined) {
    const text = await readInputFile(choices.pricesFile, "--prices");
    prices = parsePrices(text, choices.pricesFile);
    digest = sha256Hex(text);
  }
  const price: Price | null = choices.noCost ? null : prices.get(priced) ??
    (parseModelSpec(priced).kind === "scripted" ? prices.get("scripted") ?? SCRIPTED_PRICE : null);
  if (price === null && !choices.noCost) {
    throw new UsageError(
      `no price for ${priced}: pass --prices FILE with an entry '${priced}: { input: N, output: N, ` +
        `cached_input: N }' (USD per million tokens), or --no-cost to run with the cost unknown`,
    );
  }
  return { price, digest };
}

/** Each task's policy: its own file, or `--policy` (else the default) where it says `default`. */
async function taskPolicies(
  tasks: readonly Task[],
  policyFile: string | undefined,
): Promise<(task: Task) => Policy> {
  const policies = new Map<string, Policy>();
  const override = policyFile === undefined ? DEFAULT_POLICY : await loadPolicy(policyFile);
  for (const task of tasks) {
    policies.set(
      task.id,
      task.policyPath === "default" ? override : await loadPolicy(task.policyPath),
    );
  }
  return (task) => policies.get(task.id) ?? override;
}

/** The settings a run records: what shapes its trajectories, without secrets. */
function loopSettings(
  choices: LoopChoices,
  baseUrl: string | null,
  pricesDigest: string | null,
  replay: ReplaySource | undefined,
  provider: ProviderOptions,
): LoopSettings {
  return {
    base_url: baseUrl === null ? null : withoutCredentials(baseUrl),
    policy: choices.policyFile ?? "default",
    prices_file: choices.pricesFile ?? null,
    prices_sha256: pricesDigest,
    cost: choices.noCost ? "unknown" : "priced",
    tools: BUILTIN_TOOLS.map((tool) => tool.schema.name),
    ...(replay ? { replay: replay.settings } : {}),
    ...providerSettings(provider),
  };
}

/** The scripted model's crash knob as a hook: it fires once, at its point, never on resume. */
function crashHook(
  spec: ModelSpec,
  onCrash: LoopChoices["onCrash"],
): CrashHook | undefined {
  const knob = spec.kind === "scripted" ? spec.crash : null;
  if (!knob || !onCrash) return undefined;
  return (point, step, resumed) =>
    !resumed && point === knob.point && (point === "grading" || step === knob.step)
      ? onCrash(point, step)
      : Promise.resolve();
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
