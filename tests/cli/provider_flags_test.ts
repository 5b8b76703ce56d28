import assert from "node:assert/strict";
import { providerFlags } from "../../src/cli/provider_flags.ts";
import { requireProviderOptionsApply } from "../../src/eval/run/run_agents.ts";
import { agentKind } from "../../src/eval/setup/agent_registry.ts";

Deno.test("the provider flags parse into the options the model setup takes", () => {
  assert.deepEqual(
    providerFlags({
      temperature: "0.7",
      "max-output-tokens": "1024",
      "reasoning-effort": "medium",
      header: ["Anthropic-Beta: x", "X-Team:qa"],
      retries: "0",
    }),
    {
      temperature: 0.7,
      maxOutputTokens: 1024,
      reasoningEffort: "medium",
      headers: { "anthropic-beta": "x", "x-team": "qa" },
      retries: 0,
    },
  );
  assert.deepEqual(providerFlags({}), {});
  for (const [name, value] of [["temperature", ""], ["temperature", "-0.1"], ["retries", "21"]]) {
    assert.throws(() => providerFlags({ [name]: value }), new RegExp(`--${name} `));
  }
});

Deno.test("sampling flags are refused when only installed agents run; headers and retries reach them", () => {
  const claude = agentKind("claude-code");
  assert.throws(
    () => requireProviderOptionsApply({ temperature: 0.5 }, [claude]),
    /--temperature is for Verdict's loop agent; --agent claude-code@.* chooses its own sampling/,
  );
  requireProviderOptionsApply({ headers: { "x-team": "qa" }, retries: 2 }, [claude]);
  requireProviderOptionsApply({ temperature: 0.5 }, [agentKind("loop"), claude]);
});
