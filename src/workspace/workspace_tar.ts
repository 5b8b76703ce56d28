/**
 * The one way a workspace becomes a tar stream, whether it is staged for the agent, restored into
 * a new container on resume, or handed to a grader: the agent's user owns every entry but those
 * the caller keeps for root.
 *
 * @module
 */
import { AGENT_OWNER } from "../engine/sandbox.ts";
import { packOwnedTar, type TarEntry } from "../engine/tar.ts";

/**
 * Packs a workspace's entries (paths relative to the workdir). `at` is the workdir (such as
 * `/workspace`: the tar is then rooted at `/`, the folder itself first, mode 0755) or `.` (paths
 * relative to wherever it is unpacked, no folder entry). Entries are owned by the agent's user;
 * those `rootOwned` picks are owned by root instead and come last.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { packWorkspaceTar } from "./workspace_tar.ts";
 * import { parseTar } from "../engine/tar.ts";
 * const tar = packWorkspaceTar(
 *   [{ path: "a.txt", type: "file", mode: 0o644, data: new Uint8Array([104]) }],
 *   "/workspace",
 * );
 * assert.deepEqual(parseTar(tar).map((entry) => entry.path), ["workspace", "workspace/a.txt"]);
 * ```
 */
export function packWorkspaceTar(
  entries: readonly TarEntry[],
  at: string,
  rootOwned: (entry: TarEntry) => boolean = () => false,
): Uint8Array {
  const folder = at === "." ? "." : at.replace(/^\/+|\/+$/g, "");
  const agents: TarEntry[] = folder === "." ? [] : [{ path: folder, type: "dir", mode: 0o755 }];
  const roots: TarEntry[] = [];
  for (const entry of entries) {
    (rootOwned(entry) ? roots : agents).push({ ...entry, path: `${folder}/${entry.path}` });
  }
  return packOwnedTar([
    { entries: agents, options: AGENT_OWNER },
    { entries: roots, options: { uid: 0, gid: 0 } },
  ]);
}
