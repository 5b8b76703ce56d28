/**
 * Which runs are live: a process working on a run holds an exclusive lock on
 * `runs/<id>/.lock` for as long as it works, and the operating system releases it when the process
 * dies, however it dies. Containers of this state folder (its owner label, `run_owner.ts`) labelled
 * with a run nobody holds are leftovers of a killed process, and the next run removes them.
 *
 * @module
 */
import { join } from "node:path";
import type { Sandbox } from "../../engine/sandbox.ts";
import { OWNER_LABEL } from "../trial/run_owner.ts";

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
 * import assert from "node:assert/strict";
 * import { tryLockRun } from "./run_lock.ts";
 * const runDir = Deno.makeTempDirSync();
 * const lock = tryLockRun(runDir);
 * assert(lock !== undefined);
 * lock.release();
 * Deno.removeSync(runDir, { recursive: true });
 * ```
 */
export function tryLockRun(runDir: string): RunLock | undefined {
  const file = Deno.openSync(join(runDir, ".lock"), { create: true, write: true });
  if (!file.tryLockSync(true)) {
    file.close();
    return undefined;
  }
  // Unlocked before it is closed: a child process forked meanwhile holds a copy of the file until
  // it execs, and a lock only closed stays held by that copy.
  return {
    release: () => {
      file.unlockSync();
      file.close();
    },
  };
}

/**
 * Removes the containers of runs in this state directory that no live process holds; returns the
 * ids of the runs cleaned up. Only containers carrying this state directory's `owner` are
 * considered: another state directory's, even of a run with the same id, are left alone.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Docker } from "../../engine/docker.ts";
 * import { DockerSandbox } from "../../engine/docker_sandbox.ts";
 * import { removeLeftovers } from "./run_lock.ts";
 * import { stateOwner } from "../trial/run_owner.ts";
 * const sandbox = new DockerSandbox(new Docker({ PATH: "/usr/bin:/bin" }));
 * const home = await Deno.makeTempDir(); // a state folder with no runs: nothing was left
 * assert.deepEqual(await removeLeftovers(sandbox, `${home}/runs`, stateOwner(home)), []);
 * await Deno.remove(home);
 * ```
 */
export async function removeLeftovers(
  sandbox: Sandbox,
  runsDir: string,
  owner: string,
): Promise<string[]> {
  const cleaned: string[] = [];
  const byRun = Map.groupBy(
    await sandbox.findLabelled([`${OWNER_LABEL}=${owner}`, "verdict.run"], ["verdict.run"]),
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
      await sandbox.removeContainers(containers.map(({ id }) => id));
      cleaned.push(run);
    } finally {
      lock.release();
    }
  }
  return cleaned;
}
