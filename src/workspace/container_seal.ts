/**
 * The whole-container seal, for tasks that change the system rather than a folder (Harbor's): the
 * paths the container's filesystem changed against its image (`docker diff`, answered by the
 * engine, never by a tool in the container) are sealed, deletions included, paths relative to `/`,
 * once every process the agent left is killed. Their contents come from one archive made by the
 * engine's static helper (never the container's own tools), held to the engine's list, or, when
 * that fails, from the engine itself.
 * What Verdict put there (its mounts under `/verdict`, the engine's init) and `/tmp` (a tmpfs, gone
 * with the container) are not part of it.
 *
 * @module
 */
import { InfrastructureError } from "../core/errors.ts";
import { UnreadableDiffError } from "../engine/docker_diff.ts";
import { UnsealableWorkspaceError } from "../engine/unsealable.ts";
import type { FilesystemChange, SandboxContainer } from "../engine/sandbox.ts";
import {
  type SealedTree,
  sealedTree,
  sealEntries,
  type SnapshotChange,
  type SnapshotEntry,
} from "./snapshot.ts";
import type { TarEntry, TarEntryHeader } from "../engine/tar.ts";

/**
 * What a whole-container seal leaves out: Verdict's own mounts, the tmpfs `/tmp`, and the init
 * the engine mounts (`--init`; `/sbin` is often a link to `/usr/sbin`).
 */
export const UNSEALED_PATHS: readonly string[] = [
  "/verdict",
  "/tmp",
  "/proc",
  "/sys",
  "/dev",
  "/sbin/docker-init",
  "/usr/sbin/docker-init",
];

// Copies out at once: each is a `docker cp`, mostly waiting on the engine.
const PARALLEL_COPIES = 4;

/** How a container is sealed. */
export interface SealOptions {
  /**
   * The end state: what the agent left running is killed first. Otherwise (a checkpoint while
   * the agent works) nothing is stopped and the engine copies each changed path.
   */
  final: boolean;
}

/** A sealed container: its tree (paths relative to `/`) and its changes against the image. */
export interface ContainerSeal {
  /** The sealed changes: every added or changed path with its content, every deletion. */
  sealed: SealedTree;
  /** The changed paths as `show` and the report list them. */
  changes: SnapshotChange[];
}

/**
 * Seals what a running container changed against its image, then leaves it with nothing running
 * but its own idle process. `admit` sees every entry copied out (say, a limit on files and bytes)
 * and what it throws stops the seal.
 *
 * The engine lists the changed paths (`docker diff`); one exec then kills what the agent left
 * running and archives those paths with the engine's static helper, copied in just before (one
 * engine call for the contents, not one per path), never the container's own tools. A root agent
 * could still swap the helper in the moment between its copy and its run, so its entries are held
 * to the engine's list: nothing outside a changed path is taken. When that exec fails (no helper,
 * something in its way), the engine stops the container and copies each path out itself.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MemorySandbox } from "../engine/memory_sandbox.ts";
 * import { sealContainer } from "./container_seal.ts";
 * const sandbox = new MemorySandbox();
 * const container = await sandbox.start({ image: "img", workdir: "/app", network: "none", labels: {} });
 * const { changes } = await sealContainer(container);
 * assert.deepEqual(changes.map((change) => change.path), ["app"]); // the workdir it made
 * ```
 */
export async function sealContainer(
  container: SandboxContainer,
  admit?: (entry: TarEntryHeader) => void,
  options: SealOptions = { final: true },
): Promise<ContainerSeal> {
  // The final seal's helper is copied in while the engine lists the changes: one call less to wait.
  const helper = options.final ? container.installHelper() : undefined;
  const [all] = await Promise.all([listChanges(container), helper]);
  // A folder listed because something in it changed, even something left out, is no change itself.
  const parents = new Set(all.map((change) => parentOf(change.path)));
  const changes = all.filter((change) => !unsealed(change.path));
  const added = new Set(changes.filter((c) => c.kind === "added").map((c) => c.path));
  // An added folder comes with everything under it; a changed folder with changed entries is
  // sealed through them; any other changed path is taken alone (a folder: its own entry).
  const roots = changes.filter((change) =>
    change.kind === "added" ? !added.has(parentOf(change.path)) : change.kind === "changed" &&
      !parents.has(change.path)
  );
  const whole = new Set(roots.filter((root) => root.kind === "added").map((root) => root.path));
  const alone = new Set(roots.filter((root) => root.kind === "changed").map((root) => root.path));
  const copied = options.final
    ? await copyRoots(container, [...whole], [...alone], admit)
    : await copyEach(container, [...whole], [...alone], admit);
  const taken = copied.filter((entry) => {
    const path = `/${entry.path.replace(/^\.\//, "").replace(/\/+$/, "")}`;
    if (alone.has(path) || whole.has(path)) return true;
    for (let up = parentOf(path); up !== "/"; up = parentOf(up)) if (whole.has(up)) return true;
    return false;
  });
  const deleted: SnapshotEntry[] = changes.filter((change) => change.kind === "deleted").map((
    change,
  ) => ({ path: change.path.slice(1), type: "removed" }));
  const files = sealEntries(taken);
  return {
    sealed: sealedTree([...files.entries, ...deleted], files.contents),
    changes: reported(changes, parents),
  };
}

// The paths' entries, named relative to `/`: archived in one exec, or, when the helper cannot do
// it, copied by the engine one by one once the container is stopped.
async function copyRoots(
  container: SandboxContainer,
  whole: readonly string[],
  alone: readonly string[],
  admit?: (entry: TarEntryHeader) => void,
): Promise<TarEntry[]> {
  if (whole.length + alone.length === 0) {
    await container.stop();
    return [];
  }
  try {
    return await container.killAndArchive(whole, alone, admit);
  } catch (error) {
    if (!(error instanceof InfrastructureError)) throw error;
  }
  await container.stop();
  return await copyEach(container, whole, alone, admit);
}

// Each path copied out by the engine, named relative to `/`. The engine copies a folder whole:
// of one taken alone, only its own entry is kept, and only that one is admitted.
async function copyEach(
  container: SandboxContainer,
  whole: readonly string[],
  alone: readonly string[],
  admit?: (entry: TarEntryHeader) => void,
): Promise<TarEntry[]> {
  const roots = [
    ...whole.map((path) => ({ path, alone: false })),
    ...alone.map((path) => ({ path, alone: true })),
  ];
  const copied: TarEntry[] = [];
  for (let start = 0; start < roots.length; start += PARALLEL_COPIES) {
    const batch = await Promise.all(
      roots.slice(start, start + PARALLEL_COPIES).map(async (root) => {
        const base = parentOf(root.path).slice(1);
        const own = (entry: { path: string }) => !root.alone || !entry.path.includes("/");
        const entries = await copyOne(
          container,
          root.path,
          admit && ((entry) => own(entry) && admit(entry)),
        );
        return entries.filter(own).map((entry) => ({
          ...entry,
          path: base === "" ? entry.path : `${base}/${entry.path}`,
        }));
      }),
    );
    for (const entries of batch) copied.push(...entries);
  }
  return copied;
}

// A path the engine listed but cannot find has a name it printed mangled: a line break in it, or
// bytes that are not UTF-8. That is the agent's doing, and its end state cannot be sealed.
async function copyOne(
  container: SandboxContainer,
  path: string,
  admit?: (entry: TarEntryHeader) => void,
): Promise<TarEntry[]> {
  try {
    return await container.copyOut(path, admit);
  } catch (error) {
    if (
      error instanceof InfrastructureError && /Could not find the file|No such/i.test(error.message)
    ) {
      throw new UnsealablePathError(path);
    }
    throw error;
  }
}

async function listChanges(container: SandboxContainer): Promise<FilesystemChange[]> {
  try {
    return await container.changes();
  } catch (error) {
    if (error instanceof UnreadableDiffError) throw new UnsealablePathError(error.line);
    throw error;
  }
}

/** The agent left a path whose name the engine cannot report faithfully. */
export class UnsealablePathError extends UnsealableWorkspaceError {
  /** Makes the error for `path` as the engine printed it. */
  constructor(path: string) {
    super(
      `the agent left a path whose name cannot be sealed (a line break in it, or bytes that are ` +
        `not UTF-8): ${JSON.stringify(path.slice(0, 200))}`,
    );
    this.name = "UnsealablePathError";
  }
}

/**
 * Whether a path is left out of a whole-container seal.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { unsealed } from "./container_seal.ts";
 * assert(unsealed("/verdict/kit/claude") && !unsealed("/verdictx"));
 * ```
 */
export function unsealed(path: string): boolean {
  return UNSEALED_PATHS.some((folder) => path === folder || path.startsWith(`${folder}/`));
}

// A folder listed only because an entry in it changed is not a change of its own.
function reported(changes: readonly FilesystemChange[], parents: Set<string>): SnapshotChange[] {
  return changes.filter((change) => !(change.kind === "changed" && parents.has(change.path)))
    .map((change) => ({
      path: change.path.slice(1),
      change: change.kind === "added"
        ? "added"
        : change.kind === "deleted"
        ? "removed"
        : "modified",
    }));
}

function parentOf(path: string): string {
  const cut = path.lastIndexOf("/");
  return cut <= 0 ? "/" : path.slice(0, cut);
}
