/**
 * The agent registry's installed agents of kits (`claude-code`, `codex`, `NAME@VERSION`): the
 * name a run records always carries the version, building one finds its kit in the state folder
 * (or says how to get it), and an unknown name lists every agent there is.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { installedAgent } from "../../../src/agent/cmd_agent.ts";
import { LogicalClock } from "../../../src/core/clock.ts";
import { InfrastructureError, UsageError } from "../../../src/core/errors.ts";
import { sha256Hex } from "../../../src/core/hash.ts";
import { agentKind, recordedAgentKind } from "../../../src/eval/setup/agent_registry.ts";
import { setupLoopAgent } from "../../../src/eval/setup/loop_setup.ts";
import { kitRecipe } from "../../../src/kit/kit_catalogue.ts";
import { KIT_FILE, KIT_FORMAT, kitsFolder } from "../../../src/kit/kit_store.ts";
import { scratchDir } from "../../_verdict.ts";

const CLAUDE_PINNED = kitRecipe("claude-code")!.defaultVersion;
const CODEX_PINNED = kitRecipe("codex")!.defaultVersion;

/** The loop's setup for `model`, as `eval` assembles it, with a provider's key set. */
const loop = (model: string, home: string) => () =>
  setupLoopAgent({
    model,
    noCost: true,
    env: (name) => name.endsWith("_API_KEY") ? "sk-test" : undefined,
    clock: new LogicalClock({ start: 0, tick: 1 }),
    home,
  }, []);

/** Stores a kit of `agent` at `version` (its binary a few bytes) under `home`. */
async function storeKit(home: string, agent: string, version: string, binary: string) {
  const folder = join(kitsFolder(home), agent, version);
  await Deno.mkdir(folder, { recursive: true });
  const bytes = new TextEncoder().encode("#!/bin/sh\n");
  await Deno.writeFile(join(folder, binary), bytes, { mode: 0o755 });
  await Deno.writeTextFile(
    join(folder, KIT_FILE),
    JSON.stringify({
      format: KIT_FORMAT,
      agent,
      version,
      binary,
      sha256: sha256Hex(bytes),
      size: bytes.length,
      interpreter: agent === "claude-code" ? "/lib64/ld-linux-x86-64.so.2" : null,
      companions: [],
      packages: [],
    }),
  );
  return folder;
}

Deno.test("a kit agent's name carries its version: the pinned one, or the one given", () => {
  assert.equal(agentKind("claude-code").name, `claude-code@${CLAUDE_PINNED}`);
  assert.equal(agentKind("codex").name, `codex@${CODEX_PINNED}`);
  assert.equal(agentKind("codex@0.170.0").name, "codex@0.170.0");
  assert.deepEqual(agentKind("claude-code@2.1.300").needs, {
    model: true,
    solutions: false,
    gateway: true,
  });
  // A run recorded the versioned name: resume and replay find the same agent by it.
  assert.equal(recordedAgentKind("codex@0.170.0")?.name, "codex@0.170.0");
});

Deno.test("an unknown agent is refused with every agent listed, the installed ones included", () => {
  for (const name of ["robot", "claude", "gemini@1.0.0"]) {
    assert.throws(
      () => agentKind(name),
      (error: Error) =>
        error instanceof UsageError &&
        error.message.startsWith(
          `--agent ${name} is not an agent: use loop, oracle, nop, claude-code, codex (NAME@VERSION`,
        ) && error.message.includes("cmd:COMMAND"),
    );
  }
});

Deno.test("a version that is not a plain version is bad input, refused before any kit is looked for", () => {
  for (const name of ["codex@latest", "codex@", "claude-code@../../etc", "claude-code@2.1.300/x"]) {
    assert.throws(
      () => agentKind(name),
      (error: Error) =>
        error instanceof UsageError &&
        error.message.startsWith(`--agent ${name} names no version Verdict can use`) &&
        error.message.includes("verdict agents list"),
      name,
    );
  }
});

Deno.test("building a kit agent with no kit in the state folder says how to fetch it", async () => {
  await using home = await scratchDir("registry_no_kit");
  for (
    const [name, fetch] of [
      ["claude-code", `claude-code@${CLAUDE_PINNED}`],
      ["codex@0.170.0", "codex@0.170.0"],
    ]
  ) {
    await assert.rejects(
      () => agentKind(name, { home: home.path }).build(loop("scripted", home.path)),
      (error: Error) =>
        error instanceof InfrastructureError &&
        error.message.includes(`'verdict agents fetch ${fetch}'`) &&
        error.message.includes(kitsFolder(home.path)) &&
        error.message.includes("verdict agents import"),
      name,
    );
  }
});

Deno.test("a kit agent is built from its kit, mounted read-only, with the trial's gateway, its settings without the loop's tools", async () => {
  await using home = await scratchDir("registry_kit");
  const folder = await storeKit(home.path, "claude-code", "2.1.300", "claude");
  const built = await agentKind("claude-code@2.1.300", { home: home.path })
    .build(loop("scripted", home.path));
  assert.equal(built.agent.name, "claude-code@2.1.300");
  assert.equal(built.model, "scripted");
  assert(built.gateway, "an installed agent gets each trial's gateway");
  const installed = installedAgent(built.agent);
  assert(installed);
  assert.deepEqual(installed.mounts, [{ source: folder, target: "/verdict/kit", readOnly: true }]);
  assert.equal(installed.probe?.command, "/verdict/kit/claude --version");
  // It brings its own tools: the settings list none of the loop's; the loop's do.
  assert.equal(built.settings?.tools, undefined);
  const cmd = await agentKind("cmd:./agent.sh", {}).build(loop("scripted", home.path));
  assert.equal(cmd.settings?.tools, undefined);
  const own = await agentKind("loop", {}).build(loop("scripted", home.path));
  assert.ok(own.settings?.tools?.includes("shell"), `${own.settings?.tools}`);
  // The model must speak the CLI's wire format.
  await assert.rejects(
    () =>
      agentKind("claude-code@2.1.300", { home: home.path })
        .build(loop("openai:gpt-5", home.path)),
    (error: Error) => error instanceof UsageError && /speaks anthropic's API/.test(error.message),
  );
});

Deno.test("a recorded kit agent with a version that is not plain is no agent (the record is damaged)", () => {
  assert.equal(recordedAgentKind("codex@latest"), undefined);
  assert.equal(recordedAgentKind("claude-code@../x"), undefined);
});
