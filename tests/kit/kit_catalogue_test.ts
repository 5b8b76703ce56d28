import assert from "node:assert/strict";
import {
  KIT_RECIPES,
  kitRecipe,
  kitRecipesFor,
  packageRole,
  parseKitName,
} from "../../src/kit/kit_catalogue.ts";

Deno.test("the catalogue pins both agents and names their platform packages per architecture", () => {
  assert.deepEqual(
    KIT_RECIPES.map((recipe) => [recipe.agent, recipe.package, recipe.defaultVersion]),
    [["claude-code", "@anthropic-ai/claude-code", "2.1.332"], [
      "codex",
      "@openai/codex",
      "0.171.0",
    ]],
  );
  const [claude, codex] = kitRecipesFor("x86_64");
  assert.deepEqual(claude.platformPackage("2.1.332"), {
    name: "@anthropic-ai/claude-code-linux-x64",
    version: "2.1.332",
  });
  assert.deepEqual(codex.platformPackage("0.171.0"), {
    name: "@openai/codex",
    version: "0.171.0-linux-x64",
  });
  assert.equal(codex.binaryPath, "package/vendor/x86_64-unknown-linux-musl/bin/codex");
  assert.deepEqual(codex.companions, [
    {
      path: "package/vendor/x86_64-unknown-linux-musl/bin/codex-code-mode-host",
      name: "codex-code-mode-host",
    },
    { path: "package/vendor/x86_64-unknown-linux-musl/codex-path/rg", name: "path/rg" },
  ]);
  assert.deepEqual(claude.companions, []);
  const [, codexArm] = kitRecipesFor("aarch64");
  assert.equal(codexArm.binaryPath, "package/vendor/aarch64-unknown-linux-musl/bin/codex");
  assert.deepEqual(codexArm.companions.map((companion) => companion.path), [
    "package/vendor/aarch64-unknown-linux-musl/bin/codex-code-mode-host",
    "package/vendor/aarch64-unknown-linux-musl/codex-path/rg",
  ]);
  assert.equal(kitRecipe("loop"), undefined);
});

Deno.test("parseKitName splits NAME@VERSION", () => {
  assert.deepEqual(parseKitName("claude-code@2.1.300"), {
    agent: "claude-code",
    version: "2.1.300",
  });
  assert.deepEqual(parseKitName("codex"), { agent: "codex", version: null });
});

Deno.test("packageRole tells a main package from a platform package, and refuses others", () => {
  const [claude, codex] = KIT_RECIPES;
  const claudePlatform = claude.platformPackage("2.1.332");
  const codexPlatform = codex.platformPackage("0.171.0");
  assert.deepEqual(packageRole(claudePlatform.name, claudePlatform.version), {
    recipe: claude,
    version: "2.1.332",
    role: "platform",
  });
  assert.deepEqual(packageRole(codexPlatform.name, codexPlatform.version), {
    recipe: codex,
    version: "0.171.0",
    role: "platform",
  });
  assert.equal(packageRole("@openai/codex", "0.171.0")?.role, "main");
  assert.equal(packageRole("@anthropic-ai/claude-code", "2.1.332")?.role, "main");
  assert.equal(packageRole("@openai/codex", "0.171.0-darwin-arm64"), undefined);
  assert.equal(packageRole("@anthropic-ai/claude-code-win32-x64", "2.1.332"), undefined);
  assert.equal(packageRole("left-pad", "1.3.0"), undefined);
});
