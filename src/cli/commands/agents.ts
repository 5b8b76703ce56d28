/**
 * `verdict agents fetch`, `verdict agents import` and `verdict agents list`: the installed agents'
 * kits under the state folder.
 *
 * @module
 */
import { ExitCode, UsageError } from "../../core/errors.ts";
import { systemClock } from "../../core/system_clock.ts";
import { DEFAULT_REGISTRY, fetchKit } from "../../kit/fetch_kit.ts";
import { importKit } from "../../kit/import_kit.ts";
import { KIT_RECIPES, kitRecipe, parseKitName } from "../../kit/kit_catalogue.ts";
import {
  findKit,
  type Kit,
  kitsFolder,
  listKits,
  outdatedAsMissing,
  unfinishedKitFolders,
} from "../../kit/kit_store.ts";
import { type Command, HOME_OPTION, JSON_OPTION } from "../command.ts";
import { resolveHome } from "../state.ts";
import { table } from "../table.ts";

const AGENT_NAMES = KIT_RECIPES.map((recipe) => recipe.agent).join(", ");

/** The `agents fetch` command. */
export const agentsFetchCommand: Command = {
  name: "agents fetch",
  summary: "fetch installed agents' kits from npm, checksummed, into the state directory",
  args: "NAME[@VERSION]...",
  options: {
    registry: {
      type: "string",
      valueName: "URL",
      description: `npm registry (default ${DEFAULT_REGISTRY})`,
    },
    ...HOME_OPTION,
  },
  positionals: { min: 1, max: Infinity },
  details: `NAME is one of ${AGENT_NAMES}; without @VERSION the pinned version (` +
    KIT_RECIPES.map((recipe) => `${recipe.agent}@${recipe.defaultVersion}`).join(", ") +
    `).\nA kit already stored is not fetched again. Exits 3 when the registry cannot be\n` +
    `reached or a tarball does not match its integrity; nothing is stored then.`,
  async run({ io, values, positionals }) {
    const home = resolveHome(values, io);
    const registry = registryOption(values.registry);
    const wanted = positionals.map((spec) => {
      const { agent, version } = parseKitName(spec);
      if (!kitRecipe(agent)) {
        throw new UsageError(
          `unknown installed agent '${agent}' in '${spec}'; known: ${AGENT_NAMES}`,
        );
      }
      if (version === "") throw new UsageError(`'${spec}' has no version after '@'`);
      return { agent, version: version ?? undefined };
    });
    for (const { agent, version } of wanted) {
      const pinned = version ?? kitRecipe(agent)!.defaultVersion;
      const present = await findKit(home, agent, pinned).catch(outdatedAsMissing);
      if (present) {
        io.out(`${agent}@${present.version}: already present in ${present.folder}\n`);
        continue;
      }
      const started = systemClock.monotonic();
      const kit = await fetchKit(home, agent, version, {
        registry,
        onDownload: (name, version, url) => io.err(`downloading ${name}@${version} from ${url}\n`),
      });
      const seconds = (systemClock.monotonic() - started) / 1000;
      io.out(
        `${agent}@${kit.version}: stored in ${kit.folder} in ${seconds.toFixed(1)} s; ${
          describe(kit)
        }\n`,
      );
    }
    return ExitCode.yes;
  },
};

/** The `agents import` command. */
export const agentsImportCommand: Command = {
  name: "agents import",
  summary: "store an installed agent's kit from npm tarballs (for machines without a registry)",
  args: "FILE...",
  options: { ...HOME_OPTION },
  positionals: { min: 1, max: Infinity },
  details:
    "FILE is an npm tarball as `npm pack` writes it: the platform package, which carries the\n" +
    "binary (npm pack @anthropic-ai/claude-code-linux-x64@2.1.332, npm pack @openai/codex@0.171.0-linux-x64),\n" +
    "and optionally the main package. Give the files of one agent's version at a time.",
  async run({ io, values, positionals }) {
    const home = resolveHome(values, io);
    // An outdated kit is replaced by the import, not reported as present.
    const stored = await listKits(home).catch(outdatedAsMissing) ?? [];
    const before = new Set(stored.map((kit) => kit.folder));
    const kit = await importKit(home, positionals);
    io.out(
      before.has(kit.folder)
        ? `${kit.agent}@${kit.version}: already present in ${kit.folder}, with the same binary\n`
        : `${kit.agent}@${kit.version}: imported into ${kit.folder}; ${describe(kit)}\n`,
    );
    return ExitCode.yes;
  },
};

/** The `agents list` command. */
export const agentsListCommand: Command = {
  name: "agents list",
  summary: "list the installed agents' kits in the state directory",
  args: "",
  options: { ...JSON_OPTION, ...HOME_OPTION },
  positionals: { min: 0, max: 0 },
  async run({ io, values }) {
    const home = resolveHome(values, io);
    const kits = await listKits(home);
    const unfinished = await unfinishedKitFolders(home);
    const rows = kits.map((kit) => ({ ...kit, pinned: isPinned(kit) }));
    if (values.json) {
      io.out(JSON.stringify({ kits: rows, unfinished }, null, 2) + "\n");
      return ExitCode.yes;
    }
    if (kits.length === 0) {
      io.out(
        `no kits in ${kitsFolder(home)}; fetch one with ` +
          KIT_RECIPES.map((recipe) => `'verdict agents fetch ${recipe.agent}'`).join(" or ") + "\n",
      );
    } else {
      io.out(table(
        ["agent", "version", "size", "sha256", "interpreter", "pinned"],
        rows.map((kit) => [
          kit.agent,
          kit.version,
          megabytes(kit.size),
          kit.sha256.slice(0, 12),
          kit.interpreter ?? "static",
          kit.pinned ? "yes" : "",
        ]),
      ));
    }
    for (const folder of unfinished) {
      io.out(`unfinished (a fetch or import stopped, or still running): ${folder}; remove it\n`);
    }
    return ExitCode.yes;
  },
};

function registryOption(value: OptionValue): string | undefined {
  if (typeof value !== "string") return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`--registry ${value} is not a URL; give one such as ${DEFAULT_REGISTRY}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new UsageError(
      `--registry ${value} is not an http(s) URL; give one such as ${DEFAULT_REGISTRY}`,
    );
  }
  return value;
}

type OptionValue = string | boolean | string[] | undefined;

function isPinned(kit: Kit): boolean {
  return kitRecipe(kit.agent)?.defaultVersion === kit.version;
}

function describe(kit: Kit): string {
  return `binary ${kit.binary}, ${megabytes(kit.size)}, sha256 ${kit.sha256.slice(0, 12)}, ` +
    (kit.interpreter ? `needs ${kit.interpreter}` : "static");
}

function megabytes(bytes: number): string {
  return `${(bytes / 1e6).toFixed(1)} MB`;
}
