/**
 * How a staged workspace is packed for the agent's container: files the policy hides from the
 * agent are root's, with no permission for anyone else.
 *
 * @module
 */
import type { TarEntry } from "../../engine/tar.ts";
import { decide, type Policy } from "../../policy/policy.ts";
import type { TreeEntry } from "../../task/file_tree.ts";
import { packWorkspaceTar } from "../../workspace/workspace_tar.ts";

/**
 * Packs workspace entries (paths relative to the workdir) for the agent's container, rooted at
 * `/`: owned by the agent's user, except each file the policy denies `read_file` on, which is
 * owned by root with no permission for anyone else, so that no command of the agent's user can
 * read it, however it names the file. Grading restores the sealed state as the agent's user and
 * still reads it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { DEFAULT_POLICY } from "../../policy/default_policy.ts";
 * import { packWorkspace } from "./workspace_pack.ts";
 * const tar = packWorkspace([{ path: "src", type: "dir", mode: 0o755 }], DEFAULT_POLICY, "/workspace");
 * assert(tar.length % 512 === 0);
 * ```
 */
export function packWorkspace(
  entries: readonly TarEntry[],
  policy: Policy,
  workdir: string,
): Uint8Array {
  return packWorkspaceTar(
    entries.map((entry) => guardedMode(entry, policy, workdir)),
    workdir,
    (entry) => guarded(entry, policy, workdir),
  );
}

/**
 * The entry with the mode the agent's container starts it with: a guarded file is root's only.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { DEFAULT_POLICY } from "../../policy/default_policy.ts";
 * import { guardedMode } from "./workspace_pack.ts";
 * const file = { path: "notes.txt", type: "file", mode: 0o644, data: new Uint8Array() } as const;
 * assert.equal(guardedMode(file, DEFAULT_POLICY, "/workspace").mode, 0o644);
 * ```
 */
export function guardedMode<E extends TreeEntry | TarEntry>(
  entry: E,
  policy: Policy,
  workdir: string,
): E {
  return guarded(entry, policy, workdir) ? { ...entry, mode: entry.mode & 0o700 } : entry;
}

function guarded<E extends TreeEntry | TarEntry>(
  entry: E,
  policy: Policy,
  workdir: string,
): entry is Extract<E, { type: "file" }> {
  return entry.type === "file" &&
    !decide(policy, "read_file", { path: entry.path }, workdir).allowed;
}
