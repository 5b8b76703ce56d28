/**
 * A loaded task: its validated manifest and where its parts live on the host.
 *
 * @module
 */
import type { Manifest } from "./manifest.ts";

/** A task folder, loaded and validated. */
export interface Task {
  /** The task id (from the manifest). */
  id: string;
  /** The task folder. */
  dir: string;
  /** The validated manifest, defaults filled in. */
  manifest: Manifest;
  /** The text of `instruction.md`. */
  instruction: string;
  /** The policy file's path, or `default`. */
  policyPath: string | "default";
  /** Whether `solution/` exists. */
  hasSolution: boolean;
}
