/**
 * The loop agent's model, from its spec: the scripted model, an OpenAI-compatible or Anthropic
 * provider (its key from the environment, into request headers only), or a recorded run; and the
 * same model as installed agents' gateways serve it.
 *
 * @module
 */
import type { Agent } from "../../agent/agent.ts";
import { UsageError } from "../../core/errors.ts";
import { DEFAULT_REQUEST_TIMEOUT_MS } from "../../model/_http.ts";
import { ANTHROPIC_DEFAULT_BASE_URL, anthropicModel } from "../../model/anthropic.ts";
import type { Model } from "../../model/model.ts";
import type { ModelSpec } from "../../model/model_spec.ts";
import { OPENAI_DEFAULT_BASE_URL, openAiModel } from "../../model/openai.ts";
import {
  checkProviderOptions,
  type ProviderOptions,
  retryPolicy,
} from "../../model/provider_options.ts";
import { REDACTED } from "../../model/redaction.ts";
import { scriptedModel } from "../../model/scripted.ts";
import { heuristicCounter } from "../../model/tokens.ts";
import { EVENT, event, type EventPayload } from "../../store/event_catalogue.ts";
import type { GatewayModel } from "./gateway_setup.ts";
import { EndpointGate } from "../../model/endpoint_gate.ts";
import type { LoopChoices } from "./loop_choices.ts";
import type { ReplaySource } from "./replay_model.ts";

/** Makes a trial's model from the agent's run context. */
export type ModelFactory = (context: Parameters<Agent["run"]>[0]) => Promise<Model>;

/** The loop's model, and what the run records and serves of it. */
export interface LoopModel {
  /** The provider's base URL (null for the scripted model and a replay). */
  baseUrl: string | null;
  /** Makes each trial's model. */
  createModel: ModelFactory;
  /** The same model behind an installed agent's gateway; undefined for a replay. */
  gatewayModel?: GatewayModel;
}

/**
 * The loop's model for `spec` (`model` is its canonical name, for messages).
 *
 * @throws {UsageError} for a missing Anthropic key or a base URL that is not http(s).
 */
export function loopModel(
  spec: ModelSpec,
  model: string,
  choices: LoopChoices,
  replay: ReplaySource | undefined,
): LoopModel {
  if (spec.kind === "scripted") {
    return {
      baseUrl: null,
      gatewayModel: { kind: "scripted", faults: spec.faults },
      createModel: (context) =>
        scriptedModel({
          task: context.task,
          rng: context.rng.stream("model"),
          faults: spec.faults,
          counter: heuristicCounter,
        }),
    };
  }
  if (spec.kind === "openai" || spec.kind === "anthropic") {
    return providerModel(spec.kind, spec.model, model, choices);
  }
  return { baseUrl: null, createModel: (context) => replay!.model(context) };
}

// A provider's model: its key from the environment, its base URL checked.
function providerModel(
  provider: "openai" | "anthropic",
  name: string,
  model: string,
  choices: LoopChoices,
): LoopModel {
  const openai = provider === "openai";
  const options = choices.providerOptions ?? {};
  const keyName = openai ? "OPENAI_API_KEY" : "ANTHROPIC_API_KEY";
  const apiKey = choices.env(keyName) ?? "";
  const given = choices.baseUrl ?? choices.env(openai ? "OPENAI_BASE_URL" : "ANTHROPIC_BASE_URL");
  // A server of one's own may take no key; the providers' own endpoints always do.
  if (apiKey === "" && !choices.forReplay && (!openai || given === undefined)) {
    throw new UsageError(
      `${model} needs an API key: set ${keyName}` +
        (openai ? " (or point --base-url at a server of your own that takes none)" : ""),
    );
  }
  const baseUrl = given === undefined
    ? (openai ? OPENAI_DEFAULT_BASE_URL : ANTHROPIC_DEFAULT_BASE_URL)
    : normalizedBaseUrl(provider, given);
  const headers = options.headers ?? {};
  const retry = retryPolicy(options.retries);
  const requestTimeoutMs = choices.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  // One gate for the run: every trial's calls, the loop's or an installed agent's, go through it.
  const gate = options.maxConnections === undefined
    ? undefined
    : new EndpointGate(options.maxConnections, choices.clock);
  const upstream = { model: name, baseUrl, apiKey, headers };
  return {
    baseUrl,
    gatewayModel: {
      kind: "live",
      upstream: { provider, ...upstream },
      http: { clock: choices.clock, retry, requestTimeoutMs, gate },
    },
    createModel: (context) => {
      const http = {
        clock: choices.clock,
        rng: context.rng.stream("retry"),
        retry,
        requestTimeoutMs,
        gate,
        secrets: [], // each provider redacts its own key and base-URL credentials
        onRetry: (attempt: EventPayload<typeof EVENT.modelRetry>) =>
          context.record([event(EVENT.modelRetry, attempt)]),
      };
      return Promise.resolve(openai ? openAiModel(upstream, http) : anthropicModel(upstream, http));
    },
  };
}

/**
 * A base URL as the provider's client needs it, or a usage error naming the fix: an OpenAI URL
 * with no path gets `/v1` (where every OpenAI-compatible server serves), an Anthropic one loses a
 * trailing `/v1` (its client adds `/v1/messages`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { normalizedBaseUrl } from "./loop_model.ts";
 * assert.equal(normalizedBaseUrl("openai", "http://127.0.0.1:8000"), "http://127.0.0.1:8000/v1");
 * assert.equal(normalizedBaseUrl("openai", "http://h/api/v1/"), "http://h/api/v1/");
 * assert.equal(normalizedBaseUrl("anthropic", "https://h/v1/"), "https://h");
 * ```
 * @throws {UsageError} when it is not an http(s) URL.
 */
export function normalizedBaseUrl(provider: "openai" | "anthropic", url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    parsed = new URL("invalid:");
  }
  if (!/^https?:$/.test(parsed.protocol) || !/^https?:\/\/[^/]/.test(url)) {
    throw new UsageError(
      `base URL '${withoutCredentials(url)}' must start with http:// or https://`,
    );
  }
  if (provider === "anthropic") return url.replace(/\/v1\/*$/, "");
  return parsed.pathname === "/" && parsed.search === "" ? `${url.replace(/\/+$/, "")}/v1` : url;
}

/**
 * Refuses options the model cannot take: the provider's own limits (see `provider_options.ts`),
 * any but `--max-output-tokens` for the scripted model, which has no sampling, headers or
 * network, and a secret header whose value a record could not keep (a resumed run).
 */
export function checkOptionsFor(
  spec: ModelSpec,
  options: ProviderOptions,
  forReplay: boolean,
): void {
  if (spec.kind === "openai" || spec.kind === "anthropic") {
    checkProviderOptions(spec.kind, spec.model, options);
  }
  if (spec.kind === "scripted") {
    const given = [
      options.temperature !== undefined && "--temperature",
      options.reasoningEffort !== undefined && "--reasoning-effort",
      options.headers !== undefined && Object.keys(options.headers).length > 0 && "--header",
      options.retries !== undefined && "--retries",
      options.maxConnections !== undefined && "--max-connections",
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
 * import { withoutCredentials } from "./loop_model.ts";
 * assert(withoutCredentials("https://u:p@h.example/v1") === "https://h.example/v1");
 * ```
 */
export function withoutCredentials(url: string): string {
  return url.replace(/^(https?:\/\/)[^/@]*@/, "$1");
}
