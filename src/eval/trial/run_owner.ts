/**
 * Which state folder a container belongs to. Run ids depend only on the experiment, so two state
 * folders (or two users of one Docker engine) running the same experiment share a run id; every
 * container also carries an owner label naming its state folder, and every sweep selects by it.
 * Within one state folder, the run's lock (`run_lock.ts`) says which process holds a run.
 *
 * @module
 */
import { join } from "node:path";
import { deriveId } from "../../core/ids.ts";

/** The label naming a container's state folder. */
export const OWNER_LABEL = "verdict.owner";

/**
 * The owner of the containers a state folder's runs start: a short hash of the folder's real
 * path and the identity of its `verdict.db` (device, inode, birth time). Two folders never share
 * it, nor do two machines whose folders happen to have the same path, nor a folder and the one
 * that later replaces it; the same folder always gets the same owner, in any process, so a later
 * process finds what a killed one left.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { stateOwner } from "./run_owner.ts";
 * assert(stateOwner(".") === stateOwner("./"));
 * ```
 */
export function stateOwner(home: string): string {
  const folder = Deno.realPathSync(home);
  let database: Record<string, unknown> | null = null;
  try {
    const info = Deno.statSync(join(folder, "verdict.db"));
    database = { dev: info.dev, ino: info.ino, born: info.birthtime?.getTime() ?? null };
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return deriveId("verdict.owner/1", { folder, database }, 16);
}
