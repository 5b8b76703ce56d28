/**
 * The end state the agent left cannot be sealed faithfully: a file name that is not UTF-8, a path
 * too deep to copy out, more files or bytes than the task allows. The agent made it so: a trial
 * that ends this way is the agent's failure, never the harness's.
 *
 * @module
 */

/**
 * Base of every error that means "the agent's workspace cannot be sealed"; its message says why,
 * naming the path where there is one.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { UnsealableWorkspaceError } from "./unsealable.ts";
 * const error = new UnsealableWorkspaceError("the workspace holds too many files");
 * assert(error instanceof Error && error.name === "UnsealableWorkspaceError");
 * ```
 */
export class UnsealableWorkspaceError extends Error {
  /** Makes the error. */
  constructor(message: string) {
    super(message);
    this.name = "UnsealableWorkspaceError";
  }
}
