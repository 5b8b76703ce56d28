import assert from "node:assert/strict";
import { providerFlags } from "../../src/cli/provider_flags.ts";
import { requireProviderOptionsApply } from "../../src/eval/run/run_agents.ts";
import { agentKind } from "../../src/eval/setup/agent_registry.ts";
import { join } from "node:path";
import { requireKits } from "../_kits.ts";
import { scratchDir } from "../_verdict.ts";
import { runVerdictInProcess } from "./_in_process.ts";

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

Deno.test("a provider's model without its key is refused before anything starts: exit 2 naming the variable, nothing recorded", async () => {
  await using dir = await scratchDir("missing-key");
  const home = join(dir.path, "home");
  const common = ["eval", "tasks/fix-slugify", "--no-cost", "--home", home];
  const loop = await runVerdictInProcess([
    ...common,
    "--agent",
    "loop",
    "--model",
    "openai:gpt-4o",
  ]);
  assert.equal(loop.code, 2, loop.stderr);
  assert.match(loop.stderr, /openai:gpt-4o needs an API key: set OPENAI_API_KEY/);
  await requireKits(home, ["claude-code"]);
  const claude = await runVerdictInProcess([
    ...common,
    "--agent",
    "claude-code",
    "--model",
    "anthropic:claude-sonnet-4-5",
  ]);
  assert.equal(claude.code, 2, claude.stderr);
  assert.match(
    claude.stderr,
    /anthropic:claude-sonnet-4-5 needs an API key: set ANTHROPIC_API_KEY/,
  );
  // No run was taken, so no container was started: the state folder holds only the kits.
  assert.deepEqual(
    (await Array.fromAsync(Deno.readDir(home))).map((entry) => entry.name),
    ["agents"],
  );
});
