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
import { packTar } from "../engine/tar.ts";
import { readTree, type TreeEntry } from "../task/file_tree.ts";
import type { Agent, AgentOutcome } from "./agent.ts";

// stdin holds `solution/` (less `files/`) and `files.tar`: `files/` as unpacked over the workdir,
// with no entry for a folder the workspace already has, so its mode and owner stay as staged.
const APPLY_SOLUTION = `set -e
staged=$(mktemp -d)
tar -x -f - -C "$staged"
if [ -f "$staged/files.tar" ]; then (umask 0 && tar -x -f "$staged/files.tar"); fi
if [ -f "$staged/solution/solve.sh" ]; then sh "$staged/solution/solve.sh"; fi`;

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
    const solution = await readTree(join(task.dir, "solution"));
    const tar = task.harbor ? packTar(solution) : await solutionTar(task.dir, solution);
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

// What APPLY_SOLUTION unpacks: `solution/` less `files/`, and `files/` as a tar of its own that
// holds no entry for a folder the workspace already has (unpacking one would reset its mode:
// 0775 folders became 0755, a change `changed_paths_within` rightly refuses).
async function solutionTar(taskDir: string, solution: TreeEntry[]): Promise<Uint8Array> {
  const staged = new Set(
    (await readTreeIfPresent(join(taskDir, "workspace"))).filter((entry) => entry.type === "dir")
      .map((entry) => entry.path),
  );
  const files = solution.flatMap((entry) => {
    if (!entry.path.startsWith("files/")) return [];
    const path = entry.path.slice("files/".length);
    return entry.type === "dir" && staged.has(path) ? [] : [{ ...entry, path }];
  });
  const rest = solution.filter((entry) =>
    entry.path !== "files" && !entry.path.startsWith("files/")
  )
    .map((entry) => ({ ...entry, path: `solution/${entry.path}` }));
  return packTar([
    { path: "solution", type: "dir", mode: 0o755 },
    ...rest,
    ...(solution.some((entry) => entry.path === "files")
      ? [{ path: "files.tar", type: "file" as const, mode: 0o644, data: packTar(files) }]
      : []),
  ]);
}

async function readTreeIfPresent(root: string): Promise<TreeEntry[]> {
  try {
    return await readTree(root);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return [];
    throw error;
  }
}
