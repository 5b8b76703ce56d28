/**
 * Importing an installed agent's kit from npm tarballs, for machines that cannot reach a
 * registry: the tarballs `npm pack` writes elsewhere, carried over. Each tarball says what it is
 * in its own `package.json`; the platform package must be among them.
 *
 * @module
 */
import { join } from "node:path";
import { InputError, UsageError } from "../core/errors.ts";
import { escapedTarget } from "../core/link_target.ts";
import { commitKit, kitFilesOf, kitFileTargets, stagingFolder } from "./_kit_staging.ts";
import {
  PackageFormatError,
  PackageSourceError,
  type PackageTarball,
  readPackageTarball,
} from "./_package_tarball.ts";
import { elfInterpreter } from "./elf_interpreter.ts";
import { isPlainVersion, KIT_RECIPES, type KitPackageRole, packageRole } from "./kit_catalogue.ts";
import { findKit, type Kit, outdatedAsMissing } from "./kit_store.ts";

const TARBALL_FIX = "give npm package tarballs as `npm pack` writes them, such as " +
  "anthropic-ai-claude-code-linux-x64-2.1.332.tgz from `npm pack @anthropic-ai/claude-code-linux-x64@2.1.332`";

/**
 * Stores the kit made from the tarballs of one agent's platform package (required) and main
 * package (optional). A kit already stored with the same binary is returned as it is; an outdated
 * one (lacking files the agent needs now) is replaced.
 *
 * @throws {InputError} naming the file that is not a gzip tar, not a package of an installed agent
 * for this machine, or of another agent or version than the others (exit 2).
 * @throws {UsageError} when no file is the platform package, or a kit of that version is already
 * stored with a different binary (exit 2).
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { InputError } from "../core/errors.ts";
 * import { importKit } from "./import_kit.ts";
 * const home = await Deno.makeTempDir();
 * await assert.rejects(() => importKit(home, ["deno.json"]), InputError);
 * await Deno.remove(home, { recursive: true });
 * ```
 */
export async function importKit(home: string, files: string[]): Promise<Kit> {
  if (files.length === 0) throw new UsageError("give the kit's npm tarballs to import");
  for (const file of files) await requireFile(file);
  await using staging = await stagingFolder(home);
  const read: ReadPackage[] = [];
  for (const [index, file] of files.entries()) {
    // Each file's own folder: which agent's platform package it is shows only once it is read.
    read.push(await readPackage(file, join(staging.path, String(index)), read));
  }
  const { recipe, version } = read[0].role;
  const platform = read.find((entry) => entry.role.role === "platform");
  const main = read.find((entry) => entry.role.role === "main");
  if (!platform) {
    const wanted = recipe.platformPackage(version);
    throw new UsageError(
      `${files.join(", ")}: no platform package of ${recipe.agent}@${version} (the one that ` +
        `carries the binary); give also the platform package: npm pack ${wanted.name}@${wanted.version}`,
    );
  }
  const kitFiles = kitFilesOf(recipe, platform.tarball);
  if ("missing" in kitFiles) {
    throw new InputError({
      file: platform.file,
      field: kitFiles.missing,
      problem: kitFiles.missing === recipe.binaryPath
        ? "the platform package holds no binary there"
        : "the platform package lacks this file, which the binary needs",
      fix: TARBALL_FIX,
    });
  }
  const { binary } = kitFiles;
  const present = await findKit(home, recipe.agent, version).catch(outdatedAsMissing);
  if (present) return sameKit(present, `${recipe.agent}@${version}`, binary);
  // The platform package's folder becomes the kit: it keeps only this recipe's files.
  const kept = new Set(kitFileTargets(recipe, platform.folder).keys());
  for (const [path, extracted] of platform.tarball.extracted) {
    if (!kept.has(path)) await Deno.remove(extracted.file);
  }
  return await commitKit(home, platform.folder, {
    agent: recipe.agent,
    version,
    binary: recipe.binaryName,
    sha256: binary.sha256,
    size: binary.size,
    interpreter: await elfInterpreter(binary.file),
    companions: kitFiles.companions,
    packages: [platform, ...(main ? [main] : [])].map(({ tarball }) => ({
      name: tarball.name,
      version: tarball.version,
      sha256: tarball.sha256,
      integrity: null,
    })),
  });
}

/** A tarball read into a staging folder of its own, and what it is to an installed agent. */
interface ReadPackage {
  /** The tarball's file. */
  file: string;
  /** Its staging folder. */
  folder: string;
  /** What was read from it. */
  tarball: PackageTarball;
  /** Which agent, version and package it is. */
  role: KitPackageRole;
}

/**
 * Reads a tarball into `folder` and says what it is: a package of an installed agent for this
 * machine, of the same agent and version as the tarballs `read` before it, and not one of them
 * again.
 */
async function readPackage(
  file: string,
  folder: string,
  read: readonly ReadPackage[],
): Promise<ReadPackage> {
  const extract = new Map(KIT_RECIPES.flatMap((recipe) => [...kitFileTargets(recipe, folder)]));
  const tarball = await readTarballFile(file, extract);
  // The version names the kit's folder: a path or a control character in it is refused before
  // anything is named after it.
  if (!isPlainVersion(tarball.version)) {
    throw new InputError({
      file,
      field: "package/package.json: version",
      problem: `${JSON.stringify(tarball.version)} is not a version (letters, digits, dots, ` +
        "'+', '-' and '_', starting with a digit)",
      fix: TARBALL_FIX,
    });
  }
  const role = packageRole(tarball.name, tarball.version);
  if (!role) {
    throw new InputError({
      file,
      field: "package/package.json",
      problem: `it is the npm package ${tarball.name}@${tarball.version}, not a package of an ` +
        `installed agent for this machine (${KIT_RECIPES.map(platformName).join(", ")})`,
      fix: TARBALL_FIX,
    });
  }
  const first = read[0];
  if (first && (first.role.recipe !== role.recipe || first.role.version !== role.version)) {
    throw new InputError({
      file,
      field: "package/package.json",
      problem: `it belongs to ${role.recipe.agent}@${role.version}, while ${first.file} belongs ` +
        `to ${first.role.recipe.agent}@${first.role.version}`,
      fix: "import one agent's kit at a time, its tarballs of one version together",
    });
  }
  const same = read.find((other) => other.role.role === role.role);
  if (same) {
    throw new UsageError(
      `${same.file} and ${file} are both the ${role.role} package of ` +
        `${role.recipe.agent}@${role.version}: give each once`,
    );
  }
  return { file, folder, tarball, role };
}

/** The kit `kit` (`agent@version`) already stored, when it has the import's binary; else refused. */
function sameKit(present: Kit, kit: string, binary: { sha256: string }): Kit {
  if (present.sha256 === binary.sha256) return present;
  throw new UsageError(
    `a kit of ${kit} is already stored in ${present.folder} with ` +
      `another binary (sha256 ${present.sha256.slice(0, 12)}, the import's ${
        binary.sha256.slice(0, 12)
      }); remove that folder first to replace it`,
  );
}

/** A recipe's platform package, named with `VERSION` for its version. */
function platformName(recipe: (typeof KIT_RECIPES)[number]): string {
  const { name, version } = recipe.platformPackage("VERSION");
  return `${name}@${version}`;
}

/** Reads a tarball file, its errors told as the file's. */
async function readTarballFile(
  file: string,
  extract: ReadonlyMap<string, string>,
): Promise<PackageTarball> {
  const handle = await Deno.open(file);
  try {
    return await readPackageTarball(handle.readable, extract);
  } catch (error) {
    if (error instanceof PackageFormatError) {
      throw badFile(file, `not an npm package tarball: ${error.message}`);
    }
    if (error instanceof PackageSourceError) {
      throw badFile(file, `reading it failed: ${error.message}`);
    }
    throw error;
  }
}

/** Checked before anything is written: a file that is missing, a folder, or out of reach. */
async function requireFile(file: string): Promise<void> {
  const target = escapedTarget(file, "read");
  if (target !== undefined) {
    throw badFile(file, `it is a symlink that leads to ${target}, where Verdict may not read`);
  }
  try {
    if (!(await Deno.stat(file)).isFile) throw badFile(file, "it is not a file");
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) throw badFile(file, "the file does not exist");
    throw error;
  }
}

/** An input error naming a tarball file. */
function badFile(file: string, problem: string): InputError {
  return new InputError({ file, field: "", problem, fix: TARBALL_FIX });
}
