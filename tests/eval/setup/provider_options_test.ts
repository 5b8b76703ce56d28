/**
 * Provider options through the loop's setup: recorded with the run (a secret header's value
 * redacted), read back the same way by resume and replay, refused where they cannot apply, and a
 * changed one stops a resume at its first request (the fingerprint covers it).
 */
import assert from "node:assert/strict";
import { LogicalClock } from "../../../src/core/clock.ts";
import { type LoopChoices, recordedChoices } from "../../../src/eval/setup/loop_choices.ts";
import { setupLoopAgent } from "../../../src/eval/setup/loop_setup.ts";
import { SessionDivergence, sessionDriver } from "../../../src/eval/trial/session_driver.ts";
import { fingerprint } from "../../../src/model/fingerprint.ts";
import type { ModelRequest } from "../../../src/model/model.ts";
import { parseHeaders, requestParameters } from "../../../src/model/provider_options.ts";
import type { StoredEvent } from "../../../src/store/event_log.ts";

const TOKEN = "gw-token-0a1b2c3d4e5f";

const choices = (model: string, extra: Partial<LoopChoices> = {}): LoopChoices => ({
  model,
  baseUrl: "http://127.0.0.1:9/v1",
  noCost: true,
  env: () => "sk-test-key-123456789",
  clock: new LogicalClock({ start: 0, tick: 1 }),
  ...extra,
});

Deno.test("the options are recorded with the run, a secret header's value redacted; none leaves the settings as they were", async () => {
  const plain = await setupLoopAgent(choices("openai:gpt-4o"), []);
  assert.equal(
    "provider_options" in plain.settings,
    false,
    "run ids of option-less runs unchanged",
  );
  const setup = await setupLoopAgent(
    choices("openai:gpt-4o", {
      providerOptions: {
        temperature: 0.3,
        maxOutputTokens: 900,
        headers: parseHeaders([`authorization: Bearer ${TOKEN}`, "x-team: qa"]),
        retries: 1,
      },
    }),
    [],
  );
  assert.deepEqual(setup.settings.provider_options, {
    temperature: 0.3,
    max_output_tokens: 900,
    headers: { authorization: "[redacted]", "x-team": "qa" },
    retries: 1,
  });
  assert.equal(JSON.stringify(setup.settings).includes(TOKEN), false);
});

Deno.test("resume and replay rebuild the loop with the recorded options; a secret header cannot be resumed", async () => {
  const made = await setupLoopAgent(
    choices("anthropic:claude-test", {
      providerOptions: { temperature: 0.5, headers: { "anthropic-beta": "b1" }, retries: 0 },
    }),
    [],
  );
  const config = { model: made.model, settings: made.settings, repeat: 1 };
  const again = await setupLoopAgent(choices("", recordedChoices(config)), []);
  assert.deepEqual(again.settings, made.settings, "resume compares these and finds no change");

  const secret = await setupLoopAgent(
    choices("openai:gpt-4o", { providerOptions: { headers: { "x-api-key": TOKEN } } }),
    [],
  );
  const recorded = recordedChoices({ model: secret.model, settings: secret.settings, repeat: 1 });
  await assert.rejects(setupLoopAgent(choices("", recorded), []), (error: Error) => {
    assert.equal((error as unknown as { exitCode: number }).exitCode, 2);
    assert.match(error.message, /--header x-api-key: its value is a secret.*run the eval again/);
    return true;
  });
  // Replay calls no model: the recorded (redacted) header is all it needs.
  await setupLoopAgent(choices("", { ...recorded, forReplay: true }), []);
});

Deno.test("options that cannot apply are refused with exit 2: the scripted model's, Anthropic's range", async () => {
  for (
    const [model, options, message] of [
      ["scripted", { temperature: 0.2, retries: 1 }, /--temperature, --retries: .*scripted/],
      ["anthropic:claude-test", { temperature: 1.2 }, /--temperature 1.2: .*0 to 1/],
      ["openai:o4-mini", { temperature: 1 }, /--temperature 1: .*reasoning model/],
    ] as const
  ) {
    await assert.rejects(
      setupLoopAgent(choices(model, { providerOptions: options }), []),
      (error: Error) => {
        assert.equal((error as unknown as { exitCode: number }).exitCode, 2);
        assert.match(error.message, message);
        return true;
      },
    );
  }
  // The scripted model takes an output budget: it shapes the loop, not a provider call.
  await setupLoopAgent(choices("scripted", { providerOptions: { maxOutputTokens: 50 } }), []);
});

Deno.test("a changed temperature stops a resumed session at its first request, like a changed prompt", async () => {
  const request = (temperature: number): ModelRequest => {
    const parameters = requestParameters({ temperature });
    return {
      system: "s",
      messages: [{ role: "user", content: "Fix it." }],
      tools: [],
      maxOutputTokens: 100,
      ...(parameters ? { parameters } : {}),
    };
  };
  const recorded = request(0.2);
  const stored = (seq: number, kind: string, payload: Record<string, unknown>): StoredEvent => ({
    session: "s1",
    seq,
    prevHash: "",
    hash: "",
    at: null,
    kind,
    payload,
  });
  const events = [
    stored(0, "model.request", {
      step: 1,
      fingerprint: fingerprint(recorded),
      request: { system: "a", tools: "b", max_output_tokens: 100, messages: ["c"], prefix: 0 },
    }),
    stored(1, "model.response", {
      step: 1,
      response: {
        content: "done",
        toolCalls: [],
        finish: "stop",
        usage: { input: 1, cachedInput: 0, output: 1 },
      },
      cost_usd: null,
    }),
  ];
  const signal = new AbortController().signal;
  const same = await sessionDriver(events).wrapModel(null).complete(request(0.2), { signal });
  assert.equal(same.content, "done");
  await assert.rejects(
    sessionDriver(events).wrapModel(null).complete(request(0.3), { signal }),
    (error: Error) => {
      assert(error instanceof SessionDivergence);
      assert.match(error.message, /the request of step 1 differs from the recorded one/);
      return true;
    },
  );
});
