/**
 * Container removals asked for together go to the engine as one `docker rm`: a trial's agent
 * container, graders and sidecar are removed at once, and each CLI process costs CPU on the same
 * cores the next trial runs on. A removal waits at most one timer turn for others to join it.
 *
 * @module
 */
import type { Docker, DockerResult } from "./docker.ts";

/** What one container's removal came to: the CLI's outcome, with only the lines that name it. */
export type RemovalResult = Pick<DockerResult, "code" | "stderr">;

interface Pending {
  ids: string[];
  done: Promise<DockerResult>;
}

const pending = new WeakMap<Docker, Pending>();

/**
 * Removes container `id` (`docker rm --force --volumes`), in one call with every removal asked of
 * the same `docker` before the next timer turn. The result's `stderr` holds the lines that name
 * `id`, and the code is non-zero only when such a line says it failed, or the call failed as a
 * whole (no line names any container).
 *
 * @example
 * ```ts ignore
 * import { Docker } from "./docker.ts";
 * import { removeBatched } from "./_removal_batch.ts";
 * const docker = new Docker({ PATH: "/usr/bin:/bin" });
 * await Promise.all([removeBatched(docker, "a1"), removeBatched(docker, "b2")]); // one `docker rm`
 * ```
 */
export async function removeBatched(docker: Docker, id: string): Promise<RemovalResult> {
  let batch = pending.get(docker);
  if (batch === undefined) {
    const ids: string[] = [];
    const done = new Promise<void>((resolve) => setTimeout(resolve, 0)).then(() => {
      pending.delete(docker);
      return docker.run(["rm", "--force", "--volumes", ...ids]);
    });
    batch = { ids, done };
    pending.set(docker, batch);
  }
  batch.ids.push(id);
  const { ids, done } = batch;
  return ownPart(await done, id, ids);
}

function ownPart(result: DockerResult, id: string, ids: readonly string[]): RemovalResult {
  const lines = result.stderr.split("\n").filter((line) => line.trim() !== "");
  const own = lines.filter((line) => line.includes(id));
  const unattributed = lines.filter((line) => !ids.some((other) => line.includes(other)));
  if (own.length > 0) return { code: 1, stderr: own.join("\n") };
  if (result.code !== 0 && unattributed.length > 0) {
    return { code: result.code, stderr: unattributed.join("\n") };
  }
  return { code: 0, stderr: "" };
}
