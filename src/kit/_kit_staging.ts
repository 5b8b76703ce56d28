/**
 * Assembling a kit out of sight and putting it in place in one rename.
 *
 * @module
 */
import { join } from "node:path";
import type { ExtractedFile, PackageTarball } from "./_package_tarball.ts";
import type { KitRecipe } from "./kit_catalogue.ts";
import {
  findKit,
  type Kit,
  KIT_FILE,
  KIT_FORMAT,
  type KitCompanionFile,
  type KitFile,
  kitsFolder,
  OutdatedKitError,
  PARTIAL_PREFIX,
} from "./kit_store.ts";

/**
 * A fresh folder under the kits' folder to assemble a kit in; removed on dispose unless the kit
 * was committed.
 */
export async function stagingFolder(
  home: string,
): Promise<{ path: string; [Symbol.asyncDispose](): Promise<void> }> {
  await Deno.mkdir(kitsFolder(home), { recursive: true });
  const path = await Deno.makeTempDir({ dir: kitsFolder(home), prefix: PARTIAL_PREFIX });
  // The kit is mounted into containers whose agent user is not the folder's owner.
  await Deno.chmod(path, 0o755);
  return {
    path,
    [Symbol.asyncDispose]: () => Deno.remove(path, { recursive: true }).catch(() => {}),
  };
}

/** The files a kit keeps from its platform tarball: path inside the tarball → file in `folder`. */
export function kitFileTargets(recipe: KitRecipe, folder: string): Map<string, string> {
  return new Map([
    [recipe.binaryPath, join(folder, recipe.binaryName)],
    ...recipe.companions.map(({ path, name }) => [path, join(folder, name)] as const),
  ]);
}

/**
 * The binary and the companion files a platform tarball yielded, or the path inside the tarball
 * of the first one it lacks.
 */
export function kitFilesOf(
  recipe: KitRecipe,
  tarball: PackageTarball,
): { binary: ExtractedFile; companions: KitCompanionFile[] } | { missing: string } {
  const binary = tarball.extracted.get(recipe.binaryPath);
  if (!binary) return { missing: recipe.binaryPath };
  const companions: KitCompanionFile[] = [];
  for (const { path, name } of recipe.companions) {
    const file = tarball.extracted.get(path);
    if (!file) return { missing: path };
    companions.push({ name, sha256: file.sha256, size: file.size });
  }
  return { binary, companions };
}

/**
 * Writes `kit.json` into the assembled folder and renames the folder into the kit's place. When
 * another fetch put the same kit there first, that kit is returned; an outdated kit there is
 * replaced (set aside into a `.partial-*` folder, then removed).
 */
export async function commitKit(
  home: string,
  folder: string,
  record: Omit<KitFile, "format">,
): Promise<Kit> {
  const file: KitFile = { format: KIT_FORMAT, ...record };
  await Deno.writeTextFile(join(folder, KIT_FILE), JSON.stringify(file, null, 2) + "\n");
  await Deno.mkdir(join(kitsFolder(home), record.agent), { recursive: true });
  const target = join(kitsFolder(home), record.agent, record.version);
  try {
    await Deno.rename(folder, target);
  } catch (error) {
    const there = await findKit(home, record.agent, record.version).catch((found) => {
      if (found instanceof OutdatedKitError) return "outdated" as const;
      throw found;
    });
    if (there === null) throw error;
    if (there !== "outdated") return there;
    // A folder renamed onto an empty one replaces it: the outdated kit moves out in one step.
    const aside = await Deno.makeTempDir({ dir: kitsFolder(home), prefix: PARTIAL_PREFIX });
    await Deno.rename(target, aside);
    await Deno.rename(folder, target);
    await Deno.remove(aside, { recursive: true });
  }
  const kit = await findKit(home, record.agent, record.version);
  if (!kit) throw new Error(`the kit ${record.agent}@${record.version} vanished after storing`);
  return kit;
}
