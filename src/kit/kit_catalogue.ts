/**
 * What each installed agent's kit is: the npm package that names the agent, the platform package
 * that carries its native binary for this machine's architecture, and where the binary lies
 * inside that package's tarball.
 *
 * @module
 */

/** How to get one installed agent's binary from npm. */
export interface KitRecipe {
  /** The `--agent` name. */
  agent: "claude-code" | "codex";
  /** The npm main package. */
  package: string;
  /** The version used when none is given (pinned: checked against the gateway and the tasks). */
  defaultVersion: string;
  /** The npm package (and its version) that carries the native binary for this machine. */
  platformPackage(version: string): { name: string; version: string };
  /** The binary's path inside the platform package's tarball. */
  binaryPath: string;
  /** The binary's file name inside a kit's folder. */
  binaryName: string;
  /**
   * Other files of the platform package the binary needs at run time, kept beside it: `path`
   * inside the tarball, `name` the file's path inside the kit's folder (`path/rg`).
   */
  companions: readonly KitCompanion[];
}

/** A file of the platform package kept in the kit beside the binary. */
export interface KitCompanion {
  /** Its path inside the platform package's tarball. */
  path: string;
  /** Its path inside the kit's folder, relative (`codex-code-mode-host`, `path/rg`). */
  name: string;
}

/** The machine architectures kits exist for, as `Deno.build.arch` names them. */
export type KitArch = "x86_64" | "aarch64";

/**
 * The recipes for a machine architecture.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { kitRecipesFor } from "./kit_catalogue.ts";
 * const [claude, codex] = kitRecipesFor("aarch64");
 * assert.equal(claude.platformPackage("2.1.332").name, "@anthropic-ai/claude-code-linux-arm64");
 * assert.equal(codex.platformPackage("0.171.0").version, "0.171.0-linux-arm64");
 * assert.deepEqual(codex.companions.map((companion) => companion.name), [
 *   "codex-code-mode-host",
 *   "path/rg",
 * ]);
 * assert.deepEqual(claude.companions, []);
 * ```
 */
export function kitRecipesFor(arch: KitArch): readonly KitRecipe[] {
  const npmArch = arch === "aarch64" ? "arm64" : "x64";
  return [
    {
      agent: "claude-code",
      package: "@anthropic-ai/claude-code",
      defaultVersion: "2.1.332",
      platformPackage: (version) => ({
        name: `@anthropic-ai/claude-code-linux-${npmArch}`,
        version,
      }),
      binaryPath: "package/claude",
      binaryName: "claude",
      companions: [],
    },
    {
      agent: "codex",
      package: "@openai/codex",
      defaultVersion: "0.171.0",
      platformPackage: (version) => ({
        name: "@openai/codex",
        version: `${version}-linux-${npmArch}`,
      }),
      binaryPath: `package/vendor/${arch}-unknown-linux-musl/bin/codex`,
      binaryName: "codex",
      // Its default model runs in code mode, served by this host; its npm wrapper puts
      // `codex-path/` (ripgrep) on PATH.
      companions: [
        {
          path: `package/vendor/${arch}-unknown-linux-musl/bin/codex-code-mode-host`,
          name: "codex-code-mode-host",
        },
        { path: `package/vendor/${arch}-unknown-linux-musl/codex-path/rg`, name: "path/rg" },
      ],
    },
  ];
}

/**
 * The recipes for this machine (its architecture decides the platform packages).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { KIT_RECIPES } from "./kit_catalogue.ts";
 * assert.deepEqual(KIT_RECIPES.map((recipe) => recipe.agent), ["claude-code", "codex"]);
 * ```
 */
export const KIT_RECIPES: readonly KitRecipe[] = kitRecipesFor(
  Deno.build.arch === "aarch64" ? "aarch64" : "x86_64",
);

/**
 * The recipe of an agent name, or undefined for a name that is not an installed agent.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { kitRecipe } from "./kit_catalogue.ts";
 * assert.equal(kitRecipe("codex")?.package, "@openai/codex");
 * assert.equal(kitRecipe("loop"), undefined);
 * ```
 */
export function kitRecipe(agent: string): KitRecipe | undefined {
  return KIT_RECIPES.find((recipe) => recipe.agent === agent);
}

/**
 * Splits `NAME[@VERSION]` into the agent name and the version (null when none is given).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseKitName } from "./kit_catalogue.ts";
 * assert.deepEqual(parseKitName("claude-code@2.1.300"), { agent: "claude-code", version: "2.1.300" });
 * assert.deepEqual(parseKitName("codex"), { agent: "codex", version: null });
 * ```
 */
export function parseKitName(spec: string): { agent: string; version: string | null } {
  const at = spec.indexOf("@");
  if (at < 0) return { agent: spec, version: null };
  return { agent: spec.slice(0, at), version: spec.slice(at + 1) };
}

/** What an npm package is to a kit: an agent's main package or its platform package. */
export interface KitPackageRole {
  /** The agent's recipe. */
  recipe: KitRecipe;
  /** The agent's version the package belongs to. */
  version: string;
  /** `main` for the package named by the agent, `platform` for the one carrying the binary. */
  role: "main" | "platform";
}

/**
 * What a package (name and version, as its `package.json` says) is to a kit on this machine, or
 * undefined when it is neither an agent's main package nor its platform package here.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { packageRole } from "./kit_catalogue.ts";
 * const role = packageRole("@openai/codex", `0.171.0-linux-${Deno.build.arch === "aarch64" ? "arm64" : "x64"}`);
 * assert.equal(role?.role, "platform");
 * assert.equal(role?.version, "0.171.0");
 * assert.equal(packageRole("@openai/codex", "0.171.0")?.role, "main");
 * assert.equal(packageRole("@openai/codex", "0.171.0-win32-x64"), undefined);
 * assert.equal(packageRole("left-pad", "1.3.0"), undefined);
 * ```
 */
export function packageRole(name: string, version: string): KitPackageRole | undefined {
  for (const recipe of KIT_RECIPES) {
    // The platform version is a template around the agent's version: match its ends.
    const template = recipe.platformPackage("\0");
    const [before, after] = template.version.split("\0");
    if (
      name === template.name && version.length > before.length + after.length &&
      version.startsWith(before) && version.endsWith(after)
    ) {
      const agentVersion = version.slice(before.length, version.length - after.length);
      if (
        isPlainVersion(agentVersion) && recipe.platformPackage(agentVersion).version === version
      ) {
        return { recipe, version: agentVersion, role: "platform" };
      }
    }
  }
  const recipe = KIT_RECIPES.find((recipe) => recipe.package === name);
  // A platform package of another machine can share the main package's name (codex's do).
  const otherPlatform = /-(linux|darwin|win32)-/.test(version);
  return recipe && isPlainVersion(version) && !otherPlatform
    ? { recipe, version, role: "main" }
    : undefined;
}

/**
 * Whether a version string is safe as a folder name and looks like a version (`2.1.332`,
 * `0.172.0-alpha.1`): letters, digits, dots, `+`, `-` and `_`, starting with a digit.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isPlainVersion } from "./kit_catalogue.ts";
 * assert(isPlainVersion("2.1.332") && !isPlainVersion("../x") && !isPlainVersion("latest"));
 * ```
 */
export function isPlainVersion(version: string): boolean {
  return /^[0-9][0-9A-Za-z.+_-]*$/.test(version) && !version.includes("..");
}
