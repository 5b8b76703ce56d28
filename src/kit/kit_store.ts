/**
 * Where kits live: `<home>/agents/<agent>/<version>/`, holding `kit.json`, the agent's binary and
 * the companion files it needs (Codex's `codex-code-mode-host` and `path/rg`).
 * A kit folder appears whole or not at all: it is assembled in a `.partial-*` folder beside the
 * agents' folders and renamed into place, so a fetch killed halfway leaves only a `.partial-*`
 * folder, which nothing here reads as a kit.
 *
 * @module
 */
import { join, resolve } from "node:path";
import { z } from "zod";
import { CorruptionError } from "../core/errors.ts";
import { isPlainVersion, KIT_RECIPES, kitRecipe } from "./kit_catalogue.ts";

/** One npm package a kit was made from. */
export interface KitPackage {
  /** The npm package name. */
  name: string;
  /** Its version, as its `package.json` says. */
  version: string;
  /** SHA-256 of the package's tarball (hex). */
  sha256: string;
  /** The registry's `dist.integrity` the tarball was checked against; null for an import. */
  integrity: string | null;
}

/** A file kept in a kit beside the binary. */
export interface KitCompanionFile {
  /** Its path inside the kit's folder (`path/rg`). */
  name: string;
  /** SHA-256 of its content (hex). */
  sha256: string;
  /** Its size in bytes. */
  size: number;
}

/** An installed agent's kit, ready to mount into a container. */
export interface Kit {
  /** The `--agent` name. */
  agent: string;
  /** The agent's version. */
  version: string;
  /** The kit's folder (absolute). */
  folder: string;
  /** The binary's file name inside the folder. */
  binary: string;
  /** SHA-256 of the binary (hex). */
  sha256: string;
  /** The binary's size in bytes. */
  size: number;
  /** The ELF program interpreter the binary needs (`PT_INTERP`); null for a static binary. */
  interpreter: string | null;
  /** The platform package's other files the binary needs, kept beside it (mode 0755). */
  companions: KitCompanionFile[];
  /** The npm packages it came from: the platform package, and the main one when given. */
  packages: KitPackage[];
}

/** The `format` field of `kit.json`. */
export const KIT_FORMAT = "verdict-kit/2";

// Written before kits kept companion files: read as outdated, to be fetched or imported again.
const OUTDATED_FORMATS: readonly string[] = ["verdict-kit/1"];

/** The file in a kit's folder that describes it. */
export const KIT_FILE = "kit.json";

/** The prefix of the folders kits are assembled in before they are renamed into place. */
export const PARTIAL_PREFIX = ".partial-";

const sha256 = z.string().regex(/^[0-9a-f]{64}$/);
const KIT_FILE_SCHEMA = z.strictObject({
  format: z.literal(KIT_FORMAT),
  agent: z.string(),
  version: z.string(),
  binary: z.string().regex(/^[A-Za-z0-9._-]+$/),
  sha256,
  size: z.number().int().nonnegative(),
  interpreter: z.string().nullable(),
  companions: z.array(z.strictObject({
    // A relative path of plain names: nothing outside the kit's folder.
    name: z.string().regex(/^[A-Za-z0-9_-][A-Za-z0-9._-]*(\/[A-Za-z0-9_-][A-Za-z0-9._-]*)*$/),
    sha256,
    size: z.number().int().nonnegative(),
  })),
  packages: z.array(z.strictObject({
    name: z.string(),
    version: z.string(),
    sha256,
    integrity: z.string().nullable(),
  })),
});

/** What `kit.json` holds: a {@linkcode Kit} less its folder, which is where the file lies. */
export type KitFile = z.infer<typeof KIT_FILE_SCHEMA>;

/**
 * A kit stored by an earlier Verdict, or for an earlier recipe, that lacks files the agent needs
 * now (exit 1). `verdict agents fetch` and `agents import` replace it in place.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { CorruptionError } from "../core/errors.ts";
 * import { OutdatedKitError } from "./kit_store.ts";
 * const error = new OutdatedKitError("/s/agents/codex/0.171.0", "codex", "0.171.0", "lacks path/rg");
 * assert(error instanceof CorruptionError);
 * assert.match(error.message, /verdict agents fetch codex@0\.171\.0/);
 * ```
 */
export class OutdatedKitError extends CorruptionError {
  /** The kit's folder. */
  readonly folder: string;
  /** Says what the kit in `folder` lacks (`problem`: "lacks path/rg"). */
  constructor(folder: string, agent: string, version: string, problem: string) {
    super(
      `the kit in ${folder} is outdated: it ${problem}; replace it with 'verdict agents fetch ` +
        `${agent}@${version}', or import its npm tarballs again with 'verdict agents import FILE...'`,
    );
    this.name = "OutdatedKitError";
    this.folder = folder;
  }
}

/**
 * For `.catch` after {@linkcode findKit} where an outdated kit is to be replaced: null for an
 * {@linkcode OutdatedKitError}, any other error thrown again.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { outdatedAsMissing, OutdatedKitError } from "./kit_store.ts";
 * assert.equal(outdatedAsMissing(new OutdatedKitError("/k", "codex", "0.171.0", "lacks path/rg")), null);
 * assert.throws(() => outdatedAsMissing(new Error("disk")), /disk/);
 * ```
 */
export function outdatedAsMissing(error: unknown): null {
  if (error instanceof OutdatedKitError) return null;
  throw error;
}

/**
 * The folder that holds every kit of a state folder.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { kitsFolder } from "./kit_store.ts";
 * assert.equal(kitsFolder(".verdict"), ".verdict/agents");
 * ```
 */
export function kitsFolder(home: string): string {
  return join(home, "agents");
}

/**
 * The kit of an agent at a version, or null when none is stored.
 *
 * @throws {CorruptionError} when the kit's folder is there but its `kit.json` is unreadable or
 * its binary or a companion file is missing or of another size (exit 1; remove the folder and
 * fetch it again).
 * @throws {OutdatedKitError} when the kit lacks files its agent's recipe now needs (written by an
 * earlier Verdict): fetch or import it again, which replaces it.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { findKit } from "./kit_store.ts";
 * const home = await Deno.makeTempDir();
 * assert.equal(await findKit(home, "codex", "0.171.0"), null);
 * await Deno.remove(home, { recursive: true });
 * ```
 */
export async function findKit(home: string, agent: string, version: string): Promise<Kit | null> {
  if (!/^[a-z0-9-]+$/.test(agent) || !isPlainVersion(version)) return null;
  const folder = resolve(kitsFolder(home), agent, version);
  let text: string;
  try {
    text = await Deno.readTextFile(join(folder, KIT_FILE));
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw error;
  }
  const damaged = (what: string) =>
    new CorruptionError(
      `the kit in ${folder} is damaged: ${what}; remove that folder and fetch or import the ` +
        `kit again`,
    );
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw damaged(`its ${KIT_FILE} is not JSON`);
  }
  const format = (json as { format?: unknown } | null)?.format;
  if (typeof format === "string" && OUTDATED_FORMATS.includes(format)) {
    throw new OutdatedKitError(
      folder,
      agent,
      version,
      `was stored by an earlier Verdict (${KIT_FILE} format ${format}, not ${KIT_FORMAT})`,
    );
  }
  const parsed = KIT_FILE_SCHEMA.safeParse(json);
  if (!parsed.success) throw damaged(`its ${KIT_FILE} is not a ${KIT_FORMAT} record`);
  const record = parsed.data;
  if (record.agent !== agent || record.version !== version) {
    throw damaged(`its ${KIT_FILE} is for ${record.agent}@${record.version}`);
  }
  const lacking = (kitRecipe(agent)?.companions ?? []).filter((wanted) =>
    !record.companions.some((companion) => companion.name === wanted.name)
  );
  if (lacking.length > 0) {
    const names = lacking.map((companion) => companion.name).join(", ");
    throw new OutdatedKitError(folder, agent, version, `lacks ${names}`);
  }
  const files = [
    { what: `its binary ${record.binary}`, name: record.binary, size: record.size },
    ...record.companions.map(({ name, size }) => ({ what: `its file ${name}`, name, size })),
  ];
  for (const { what, name, size: expected } of files) {
    let size: number;
    try {
      size = (await Deno.stat(join(folder, name))).size;
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
      throw damaged(`${what} is missing`);
    }
    if (size !== expected) throw damaged(`${what} has ${size} bytes, not ${expected}`);
  }
  const { format: _format, ...kit } = record;
  return { ...kit, folder };
}

/**
 * Every kit stored under a state folder, by agent then version (folders being assembled are not
 * kits and are left out).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { listKits } from "./kit_store.ts";
 * const home = await Deno.makeTempDir();
 * assert.deepEqual(await listKits(home), []);
 * await Deno.remove(home, { recursive: true });
 * ```
 */
export async function listKits(home: string): Promise<Kit[]> {
  const kits: Kit[] = [];
  for (const recipe of KIT_RECIPES) {
    for (const version of await folderNames(join(kitsFolder(home), recipe.agent))) {
      const kit = await findKit(home, recipe.agent, version);
      if (kit) kits.push(kit);
    }
  }
  return kits;
}

/**
 * The folders left by fetches or imports that did not finish (killed, or still running), which
 * nothing reads as a kit: their paths, to report and remove.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { unfinishedKitFolders } from "./kit_store.ts";
 * const home = await Deno.makeTempDir();
 * assert.deepEqual(await unfinishedKitFolders(home), []);
 * await Deno.remove(home, { recursive: true });
 * ```
 */
export async function unfinishedKitFolders(home: string): Promise<string[]> {
  const names = await folderNames(kitsFolder(home), true);
  return names.filter((name) => name.startsWith(PARTIAL_PREFIX)).map((name) =>
    join(kitsFolder(home), name)
  );
}

async function folderNames(folder: string, hidden = false): Promise<string[]> {
  const names: string[] = [];
  try {
    for await (const entry of Deno.readDir(folder)) {
      if (entry.isDirectory && (hidden || !entry.name.startsWith("."))) names.push(entry.name);
    }
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return [];
    throw error;
  }
  return names.sort(compareVersions);
}

// Numeric parts compare as numbers: 2.1.99 before 2.1.332.
function compareVersions(a: string, b: string): number {
  return a.localeCompare(b, "en", { numeric: true });
}
