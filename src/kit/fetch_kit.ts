/**
 * Fetching an installed agent's kit from an npm registry: the main package and the platform
 * package, each tarball checked against the registry's integrity as it streams in, the binary
 * and its companion files taken out of the platform package, the kit stored whole or not at all.
 *
 * @module
 */
import { InfrastructureError, UsageError } from "../core/errors.ts";
import { commitKit, kitFilesOf, kitFileTargets, stagingFolder } from "./_kit_staging.ts";
import {
  PackageFormatError,
  PackageSourceError,
  type PackageTarball,
  readPackageTarball,
} from "./_package_tarball.ts";
import { elfInterpreter } from "./elf_interpreter.ts";
import { isPlainVersion, KIT_RECIPES, type KitRecipe, kitRecipe } from "./kit_catalogue.ts";
import { findKit, type Kit, type KitPackage, outdatedAsMissing } from "./kit_store.ts";

/** The public npm registry. */
export const DEFAULT_REGISTRY = "https://registry.npmjs.org";

/** Options of {@linkcode fetchKit}. */
export interface FetchKitOptions {
  /** The registry's URL (default {@linkcode DEFAULT_REGISTRY}). */
  registry?: string;
  /** Stops the downloads; nothing is stored. */
  signal?: AbortSignal;
  /** Told each download as it starts, for progress lines. */
  onDownload?: (name: string, version: string, url: string) => void;
}

/**
 * The kit of an agent at a version (default: the pinned one), fetched from the registry unless it
 * is already stored; an outdated kit (one lacking files the agent needs now) is replaced.
 *
 * @throws {UsageError} for an unknown agent, or a version the registry does not have (exit 2).
 * @throws {InfrastructureError} when the registry cannot be reached, or a tarball does not match
 * its integrity (exit 3); nothing is stored then.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { UsageError } from "../core/errors.ts";
 * import { fetchKit } from "./fetch_kit.ts";
 * const home = await Deno.makeTempDir();
 * await assert.rejects(() => fetchKit(home, "aider", undefined), UsageError);
 * await Deno.remove(home, { recursive: true });
 * ```
 */
export async function fetchKit(
  home: string,
  agent: string,
  version: string | undefined,
  options: FetchKitOptions = {},
): Promise<Kit> {
  const recipe = kitRecipe(agent);
  if (!recipe) {
    throw new UsageError(
      `unknown installed agent '${agent}'; known: ${KIT_RECIPES.map((r) => r.agent).join(", ")}`,
    );
  }
  const registry = (options.registry ?? DEFAULT_REGISTRY).replace(/\/+$/, "");
  const wanted = version ?? recipe.defaultVersion;
  const present = isPlainVersion(wanted)
    ? await findKit(home, agent, wanted).catch(outdatedAsMissing)
    : null;
  if (present) return present;
  const main = await packageVersion(registry, recipe, recipe.package, wanted, options.signal);
  // A dist-tag (`latest`) is answered with the version it stands for.
  const resolved = main.version;
  if (!isPlainVersion(resolved)) {
    throw new InfrastructureError(`the registry ${registry} named version '${resolved}'`);
  }
  if (resolved !== wanted) {
    const there = await findKit(home, agent, resolved).catch(outdatedAsMissing);
    if (there) return there;
  }
  const platform = recipe.platformPackage(resolved);
  const binaryMeta = await packageVersion(
    registry,
    recipe,
    platform.name,
    platform.version,
    options.signal,
  );
  await using staging = await stagingFolder(home);
  const mainTarball = await download(main, new Map(), options);
  const platformTarball = await download(
    binaryMeta,
    kitFileTargets(recipe, staging.path),
    options,
  );
  const files = kitFilesOf(recipe, platformTarball);
  if ("missing" in files) {
    throw new InfrastructureError(
      `the tarball of ${platform.name}@${platform.version} holds no ${files.missing}: the ` +
        `package's layout changed; pin a version that works, or import the kit`,
    );
  }
  return await commitKit(home, staging.path, {
    agent: recipe.agent,
    version: resolved,
    binary: recipe.binaryName,
    sha256: files.binary.sha256,
    size: files.binary.size,
    interpreter: await elfInterpreter(files.binary.file),
    companions: files.companions,
    packages: [packageRecord(platformTarball), packageRecord(mainTarball)],
  });
}

/** What the registry says of one version of a package. */
interface PackageVersion {
  name: string;
  version: string;
  tarball: string;
  integrity: string;
}

async function packageVersion(
  registry: string,
  recipe: KitRecipe,
  name: string,
  version: string,
  signal: AbortSignal | undefined,
): Promise<PackageVersion> {
  const url = `${registry}/${name.replace("/", "%2f")}/${encodeURIComponent(version)}`;
  const response = await request(url, `${name}@${version}`, registry, signal, {
    accept: "application/json",
  });
  if (response.status === 404) {
    await response.body?.cancel();
    throw new UsageError(
      `${name}@${version} is not in the registry ${registry}: see the versions with ` +
        `'npm view ${recipe.package} versions', then fetch ${recipe.agent}@VERSION`,
    );
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw new InfrastructureError(
      `the registry answered ${response.status} for ${name}@${version} (${url})`,
    );
  }
  let body: unknown;
  try {
    body = await response.json();
  } catch (error) {
    throw new InfrastructureError(
      `the registry's answer for ${name}@${version} (${url}) is not JSON`,
      { cause: error },
    );
  }
  const meta = (body ?? {}) as {
    version?: unknown;
    dist?: { tarball?: unknown; integrity?: unknown };
  };
  const { tarball, integrity } = meta.dist ?? {};
  if (
    typeof meta.version !== "string" || typeof tarball !== "string" ||
    typeof integrity !== "string" || !/sha512-/.test(integrity)
  ) {
    throw new InfrastructureError(
      `the registry's answer for ${name}@${version} (${url}) lacks version, dist.tarball or a ` +
        `sha512 dist.integrity`,
    );
  }
  return { name, version: meta.version, tarball, integrity };
}

async function download(
  meta: PackageVersion,
  extract: ReadonlyMap<string, string>,
  options: FetchKitOptions,
): Promise<PackageTarball> {
  const what = `${meta.name}@${meta.version}`;
  options.onDownload?.(meta.name, meta.version, meta.tarball);
  const response = await request(meta.tarball, what, meta.tarball, options.signal, {});
  if (!response.ok || response.body === null) {
    await response.body?.cancel();
    throw new InfrastructureError(
      `downloading ${what} from ${meta.tarball} failed: the server answered ${response.status}`,
    );
  }
  let tarball: PackageTarball;
  try {
    tarball = await readPackageTarball(response.body, extract);
  } catch (error) {
    if (options.signal?.aborted) throw options.signal.reason;
    if (error instanceof PackageSourceError) {
      throw new InfrastructureError(
        `downloading ${what} from ${meta.tarball} broke off: ${error.message}; fetch again`,
        { cause: error },
      );
    }
    if (error instanceof PackageFormatError) {
      throw new InfrastructureError(
        `the tarball of ${what} from ${meta.tarball} is not a package tarball: ${error.message}`,
      );
    }
    throw error;
  }
  const expected = meta.integrity.split(/\s+/).filter((hash) => hash.startsWith("sha512-"));
  const got = `sha512-${tarball.sha512}`;
  if (!expected.includes(got)) {
    throw new InfrastructureError(
      `the tarball of ${what} from ${meta.tarball} does not match the registry's integrity: ` +
        `expected ${expected.join(" or ")}, got ${got}; nothing was stored`,
    );
  }
  if (tarball.name !== meta.name || tarball.version !== meta.version) {
    throw new InfrastructureError(
      `the tarball of ${what} from ${meta.tarball} holds ${tarball.name}@${tarball.version}`,
    );
  }
  return tarball;
}

async function request(
  url: string,
  what: string,
  where: string,
  signal: AbortSignal | undefined,
  headers: Record<string, string>,
): Promise<Response> {
  try {
    return await fetch(url, { signal, headers });
  } catch (error) {
    if (signal?.aborted) throw signal.reason;
    throw new InfrastructureError(
      `cannot reach ${where} for ${what}: ${error instanceof Error ? error.message : error}; ` +
        `check the network or --registry, or import the kit from tarballs with ` +
        `'verdict agents import'`,
      { cause: error },
    );
  }
}

function packageRecord(tarball: PackageTarball): KitPackage {
  return {
    name: tarball.name,
    version: tarball.version,
    sha256: tarball.sha256,
    integrity: `sha512-${tarball.sha512}`,
  };
}
