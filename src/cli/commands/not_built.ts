/**
 * Commands of the contract that this version does not have yet: they say so and exit 2.
 *
 * @module
 */
import { UsageError } from "../../core/errors.ts";
import type { Command } from "../command.ts";

/**
 * A placeholder for a command that is part of SPEC section 2 but not built yet.
 *
 * @example
 * ```ts
 * import { notBuilt } from "./not_built.ts";
 * const command = notBuilt("stats", "RUN...", "per-task and overall statistics");
 * console.assert(command.name === "stats");
 * ```
 */
export function notBuilt(name: string, args: string, summary: string): Command {
  return {
    name,
    summary: `${summary} (not built yet)`,
    args,
    options: {},
    positionals: { min: 0, max: Infinity },
    run() {
      throw new UsageError(`verdict ${name} is not built yet in this version of Verdict`);
    },
  };
}
