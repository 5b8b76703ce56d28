/**
 * Which runs are live: a process working on a run holds an exclusive lock on
 * `runs/<id>/.lock` for as long as it works, and the operating system releases it when the process
 * dies, however it dies. Containers of this state folder (its owner label, `run_owner.ts`) labelled
 * with a run nobody holds are leftovers of a killed process, and the next run removes them.
 *
 * @module
 */
import { join } from "node:path";
import { findLabelled, removeContainers } from "../sandbox/container.ts";
import type { Docker } from "../sandbox/docker.ts";
import { OWNER_LABEL } from "./run_owner.ts";

/** A held run lock. */
export interface RunLock {
  /** Releases the lock. */
  release(): void;
}

/**
 * Takes the lock of a run folder, or returns undefined when another process holds it.
 *
 * @example
 * ```ts
 * import { tryLockRun } from "./run_lock.ts";
 * const lock = tryLockRun(".verdict/runs/abc123");
 * lock?.release();
 * ```
 */
export function tryLockRun(runDir: string): RunLock | undefined {
  const file = Deno.openSync(join(runDir, ".lock"), { create: true, write: true });
  if (!file.tryLockSync(true)) {
    file.close();
    return undefined;
  }
  return { release: () => file.close() };
}

/**
 * Removes the containers of runs in this state directory that no live process holds; returns the
 * ids of the runs cleaned up. Only containers carrying this state directory's `owner` are
 * considered: another state directory's, even of a run with the same id, are left alone.
 *
 * @example
 * ```ts
 * import { Docker } from "../sandbox/docker.ts";
 * import { removeLeftovers } from "./run_lock.ts";
 * import { stateOwner } from "./run_owner.ts";
 * const docker = new Docker({ PATH: "/usr/bin:/bin" });
 * console.log(await removeLeftovers(docker, ".verdict/runs", stateOwner(".verdict")));
 * ```
 */
export async function removeLeftovers(
  docker: Docker,
  runsDir: string,
  owner: string,
): Promise<string[]> {
  const cleaned: string[] = [];
  const byRun = Map.groupBy(
    await findLabelled(docker, [`${OWNER_LABEL}=${owner}`, "verdict.run"], ["verdict.run"]),
    (container) => container.labels["verdict.run"],
  );
  for (const [run, containers] of byRun) {
    const runDir = join(runsDir, run);
    try {
      if (!Deno.statSync(runDir).isDirectory) continue;
    } catch {
      continue;
    }
    const lock = tryLockRun(runDir);
    if (lock === undefined) continue;
    try {
      await removeContainers(docker, containers.map(({ id }) => id));
      cleaned.push(run);
    } finally {
      lock.release();
    }
  }
  return cleaned;
}
