/**
 * The installed agents' kits for tests: fetched once per machine into {@linkcode KITS_HOME}
 * (`deno task kits`, which `.ci/run` runs from its cache), then hard-linked into each test's own
 * state folder, so no test reaches the network and none copies 700 MB.
 *
 * @module
 */
import { join } from "node:path";
import { KIT_RECIPES } from "../src/kit/kit_catalogue.ts";
import { findKit, kitsFolder } from "../src/kit/kit_store.ts";
import { PROJECT_ROOT } from "./_verdict.ts";

/** The state folder the kits are fetched into once per machine (git-ignored). */
export const KITS_HOME: string = join(PROJECT_ROOT, ".verdict-kits");

/**
 * Links the pinned kits of `agents` into `home`'s kits folder; fails loudly, naming the command
 * that fetches them, when they are missing.
 */
export async function requireKits(
  home: string,
  agents: readonly string[] = KIT_RECIPES.map((recipe) => recipe.agent),
): Promise<void> {
  for (const agent of agents) {
    const recipe = KIT_RECIPES.find((candidate) => candidate.agent === agent)!;
    const kit = await findKit(KITS_HOME, agent, recipe.defaultVersion);
    if (kit === null) {
      throw new Error(
        `the ${agent} ${recipe.defaultVersion} kit is missing from ${KITS_HOME}: run ` +
          "'deno task kits' (fetches the pinned kits from npm once per machine), or import npm " +
          "tarballs with 'deno task verdict agents import FILE... --home .verdict-kits'",
      );
    }
    await linkTree(kit.folder, join(kitsFolder(home), agent, kit.version));
  }
}

// Hard-links a folder's files into `target`, its subfolders (a kit's `path/`) made alike, 0755.
async function linkTree(folder: string, target: string): Promise<void> {
  await Deno.mkdir(target, { recursive: true, mode: 0o755 });
  for await (const entry of Deno.readDir(folder)) {
    if (entry.isDirectory) {
      await linkTree(join(folder, entry.name), join(target, entry.name));
      continue;
    }
    await Deno.link(join(folder, entry.name), join(target, entry.name)).catch((error) => {
      if (!(error instanceof Deno.errors.AlreadyExists)) throw error;
    });
  }
}
