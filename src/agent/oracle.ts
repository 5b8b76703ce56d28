/**
 * The `oracle` agent: applies the task's reference solution with no model: `solution/files/` is
 * mirrored onto the workspace, then `solution/solve.sh` runs in the workdir, both inside the
 * trial's container as the unprivileged agent user, in one command.
 *
 * @module
 */
import { EVENT, event } from "../store/event_catalogue.ts";
import { join } from "node:path";
import { UsageError } from "../core/errors.ts";
import { ZERO_COUNTERS } from "../store/run_counters.ts";
import { packTar } from "../sandbox/tar.ts";
import { readTree } from "../task/file_tree.ts";
import type { Agent, AgentOutcome } from "./agent.ts";

const APPLY_SOLUTION = `set -e
solution=$(mktemp -d)
tar -x -f - -C "$solution"
if [ -d "$solution/files" ]; then cp -a "$solution/files/." .; fi
if [ -f "$solution/solve.sh" ]; then sh "$solution/solve.sh"; fi`;

// A Harbor task's oracle, as Harbor runs it: `solution/` at `/solution`, `bash solve.sh` as root in
// the image's WORKDIR. The folder is removed afterwards, so it is not part of the end state.
const APPLY_HARBOR_SOLUTION = `mkdir -p /solution && tar -x -f - -C /solution || exit 1
bash /solution/solve.sh
status=$?
rm -rf /solution
exit $status`;

/**
 * Why the oracle cannot run a task with no `solution/`, and how to fix the task.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { noSolutionMessage } from "./oracle.ts";
 * assert(noSolutionMessage("tasks/a").includes("solution/solve.sh"));
 * ```
 */
export function noSolutionMessage(taskDir: string): string {
  return `${taskDir} has no solution/ folder, which the oracle agent applies: add ` +
    `solution/solve.sh (run in the workdir) or solution/files/ (copied over the workspace)`;
}

/**
 * The agent that applies the reference solution.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { oracleAgent } from "./oracle.ts";
 * assert(oracleAgent.name === "oracle");
 * ```
 */
export const oracleAgent: Agent = {
  name: "oracle",
  async run(context): Promise<AgentOutcome> {
    const { task } = context;
    if (!task.hasSolution) throw new UsageError(noSolutionMessage(task.dir));
    const tar = packTar(await readTree(join(task.dir, "solution")));
    const script = task.harbor ? APPLY_HARBOR_SOLUTION : APPLY_SOLUTION;
    const result = await context.container.exec(script, {
      timeoutMs: context.timeoutMs,
      stdin: tar,
      signal: context.signal,
    });
    if (result.aborted) throw context.signal.reason;
    context.record([event(EVENT.agentOracle, {
      exit_code: result.exitCode,
      timed_out: result.timedOut,
      stdout: result.stdout,
      stderr: result.stderr,
    })]);
    const stopReason = result.timedOut ? "timeout" : result.exitCode === 0 ? "completed" : "error";
    return {
      stopReason,
      counters: { ...ZERO_COUNTERS, finished: stopReason === "completed" },
      tokens: { input: 0, output: 0 },
      detail: result.exitCode === 0
        ? undefined
        : `the reference solution exited ${result.exitCode}`,
    };
  },
};
