/**
 * `eval`'s provider options (`--temperature`, `--max-output-tokens`, `--reasoning-effort`,
 * `--header`, `--retries`): their help entries and their values, checked as far as no model is
 * needed (a provider's own limits are checked when its model is built, see `provider_options.ts`).
 *
 * @module
 */
import { UsageError } from "../core/errors.ts";
import {
  DEFAULT_RETRIES,
  MAX_RETRIES,
  MAX_TEMPERATURE,
  parseHeaders,
  type ProviderOptions,
  REASONING_EFFORTS,
  type ReasoningEffort,
} from "../model/provider_options.ts";
import type { OptionSpec, OptionValues } from "./command.ts";
import { count, stringOption } from "./option_values.ts";

/** The most `--max-output-tokens` takes: more than any model's output limit. */
const MAX_OUTPUT_TOKENS = 1_000_000;

/** The options' help entries, for a command's `options`. */
export const PROVIDER_OPTIONS: Record<string, OptionSpec> = {
  temperature: {
    type: "string",
    valueName: "X",
    description: `sampling temperature, 0 to ${MAX_TEMPERATURE.openai} for openai: models, 0 to ` +
      `${MAX_TEMPERATURE.anthropic} for anthropic: (default the provider's; refused for OpenAI ` +
      "reasoning models)",
  },
  "max-output-tokens": {
    type: "string",
    valueName: "N",
    description: "the most tokens one answer may have, for every task (default each task's " +
      "context.reserve_output_tokens)",
  },
  "reasoning-effort": {
    type: "string",
    valueName: "LEVEL",
    description: `${REASONING_EFFORTS.join(", ")}: sent as reasoning_effort to OpenAI ` +
      "models (refused for known chat models such as gpt-4o, and for anthropic:)",
  },
  header: {
    type: "string",
    multiple: true,
    valueName: "K:V",
    description: "an extra request header for every model call (gateways, beta features); " +
      "recorded, except the value of a credential-like header (authorization, *key*, *token*)",
  },
  retries: {
    type: "string",
    valueName: "N",
    description: `retries of a failed model call (429, 5xx, timeouts; default ${DEFAULT_RETRIES})`,
  },
  "max-connections": {
    type: "string",
    valueName: "N",
    description: "most model calls out at once to the endpoint, over all trials, which also " +
      "share each back-off the provider asks for (default: no limit)",
  },
};

/** The most `--max-connections` takes. */
const MAX_CONNECTIONS = 1000;

/**
 * The provider options the flags give, checked as far as no model is needed.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { providerFlags } from "./provider_flags.ts";
 * assert.deepEqual(providerFlags({ temperature: "0.5" }), { temperature: 0.5 });
 * ```
 * @throws {UsageError} naming the flag and what it takes.
 */
export function providerFlags(values: OptionValues): ProviderOptions {
  const options: ProviderOptions = {};
  const temperature = stringOption(values, "temperature");
  if (temperature !== undefined) {
    const value = Number(temperature);
    if (!(value >= 0 && value <= MAX_TEMPERATURE.openai) || temperature.trim() === "") {
      throw new UsageError(
        `--temperature ${temperature} must be a number from 0 to ${MAX_TEMPERATURE.openai} ` +
          `(0 to ${MAX_TEMPERATURE.anthropic} for anthropic: models), such as 0.2`,
      );
    }
    options.temperature = value;
  }
  if (stringOption(values, "max-output-tokens") !== undefined) {
    options.maxOutputTokens = count(values, "max-output-tokens", 0, 1, MAX_OUTPUT_TOKENS);
  }
  const effort = stringOption(values, "reasoning-effort");
  if (effort !== undefined) {
    if (!(REASONING_EFFORTS as readonly string[]).includes(effort)) {
      throw new UsageError(
        `--reasoning-effort ${effort} is not a level: use ${REASONING_EFFORTS.join(", ")}`,
      );
    }
    options.reasoningEffort = effort as ReasoningEffort;
  }
  const headers = values.header as string[] | undefined;
  if (headers !== undefined && headers.length > 0) options.headers = parseHeaders(headers);
  if (stringOption(values, "retries") !== undefined) {
    options.retries = count(values, "retries", DEFAULT_RETRIES, 0, MAX_RETRIES);
  }
  if (stringOption(values, "max-connections") !== undefined) {
    options.maxConnections = count(values, "max-connections", 0, 1, MAX_CONNECTIONS);
  }
  return options;
}
