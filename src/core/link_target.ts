/**
 * Where a path really leads once every symlink along it is followed. Deno checks permissions on
 * the path as written, so a link inside the permitted tree would otherwise let a read or a write
 * reach a file outside it; callers compare the real location with where the file may be.
 *
 * @module
 */
import { isAbsolute, join } from "node:path";

// Links followed before a chain is taken for a loop, as the kernel's own limit.
const MAX_LINKS = 40;

/**
 * The absolute path a path leads to, every symlink along it followed (a dangling link to where it
 * points). The parts that do not exist yet are kept as written.
 *
 * @throws {Deno.errors.FilesystemLoop} when the links form a loop.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { linkTarget } from "./link_target.ts";
 * assert(linkTarget("deno.json") === `${Deno.cwd()}/deno.json`);
 * ```
 */
export function linkTarget(path: string): string {
  // Joined by hand, not with path.join: `..` after a link is resolved after the link, as the
  // system resolves it, not folded away beforehand.
  let pending = parts(isAbsolute(path) ? path : `${Deno.cwd()}/${path}`);
  let current = "/";
  let links = 0;
  while (pending.length > 0) {
    const part = pending.shift()!;
    if (part === "..") {
      current = join(current, "..");
      continue;
    }
    const next = join(current, part);
    const kind = kindOf(next);
    if (kind === "missing") return join(next, ...pending);
    if (kind === "other") {
      current = next;
      continue;
    }
    if (++links > MAX_LINKS) throw new Deno.errors.FilesystemLoop(`too many links at ${next}`);
    const target = Deno.readLinkSync(next);
    pending = [...parts(isAbsolute(target) ? target : `${current}/${target}`), ...pending];
    current = "/";
  }
  return current;
}

/**
 * Whether `path`, once its links are followed, lies inside the folder `root` (or is it).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { leadsInside } from "./link_target.ts";
 * assert(leadsInside("src/core/hash.ts", "src") && !leadsInside("deno.json", "src"));
 * ```
 */
export function leadsInside(path: string, root: string): boolean {
  const target = linkTarget(path);
  const folder = linkTarget(root);
  return target === folder || target.startsWith(folder.endsWith("/") ? folder : `${folder}/`);
}

/**
 * Where a path's symlinks lead it when the process may read or write the path as written but not
 * where it leads (the escape Deno's own check misses); undefined otherwise.
 *
 * @throws {Deno.errors.FilesystemLoop} when the links form a loop.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { escapedTarget } from "./link_target.ts";
 * assert(escapedTarget("deno.json", "read") === undefined);
 * ```
 */
export function escapedTarget(path: string, access: "read" | "write"): string | undefined {
  const permitted = (place: string) =>
    Deno.permissions.querySync({ name: access, path: place }).state === "granted";
  if (!permitted(path)) return undefined;
  const target = linkTarget(path);
  return permitted(target) ? undefined : target;
}

function parts(path: string): string[] {
  return path.split("/").filter((part) => part !== "" && part !== ".");
}

// A folder Verdict may not look into (an ancestor of the project folder) counts as no link: the
// permission set itself was resolved from real paths.
// Asked first, not caught after: on a terminal a refused lstat would stop for a permission prompt.
function kindOf(path: string): "link" | "missing" | "other" {
  if (Deno.permissions.querySync({ name: "read", path }).state !== "granted") return "other";
  try {
    return Deno.lstatSync(path).isSymlink ? "link" : "other";
  } catch (error) {
    if (error instanceof Deno.errors.NotCapable) return "other";
    if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory) {
      return "missing";
    }
    throw error;
  }
}
