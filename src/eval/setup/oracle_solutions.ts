/**
 * The oracle agent applies each task's reference solution (`solution/`). A task without one
 * cannot be run by it: that is the task's gap, refused before a run starts, never a trial charged
 * to the harness.
 *
 * @module
 */
import { noSolutionMessage } from "../../agent/oracle.ts";
import { UsageError } from "../../core/errors.ts";
import type { Task } from "../../task/task.ts";

/**
 * Refuses tasks the oracle cannot run.
 *
 * @example
 * ```ts
 * import { requireSolutions } from "./oracle_solutions.ts";
 * requireSolutions([]);
 * ```
 * @throws {UsageError} naming every task folder without a `solution/` (exit 2).
 */
export function requireSolutions(tasks: readonly Task[]): void {
  const missing = tasks.filter((task) => !task.hasSolution);
  if (missing.length === 0) return;
  throw new UsageError(
    `${missing.map((task) => noSolutionMessage(task.dir)).join("; ")}; or leave ${
      missing.length === 1 ? "it" : "them"
    } out with --task`,
  );
}
