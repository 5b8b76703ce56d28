/**
 * A Verdict task written as a Harbor task folder (`verdict tasks export --format harbor`), as a
 * sorted list of entries, the same bytes every time:
 *
 * - `task.toml`: `version = "1.0"`; `[metadata]` with the category, `verdict_id` and what was not
 *   exported; `[verifier].timeout_sec` = `success.timeout_s`; `[agent].timeout_sec` =
 *   `limits.timeout_s`; `[environment].build_timeout_sec`.
 * - `instruction.md`, as is.
 * - `environment/Dockerfile` (`FROM` the task's image, `WORKDIR` its workdir, `COPY` of
 *   `environment/workspace/`, the task's `workspace/`, into it).
 * - `tests/verdict/`: the task's `tests/`, under a folder of its own so that its success script
 *   (often itself `test.sh`) cannot collide with Harbor's entry point; `tests/test.sh`, generated:
 *   it makes `/verdict/tests` lead to `/tests/verdict` (Verdict's scripts name their files there),
 *   runs the success script in the workdir with the environment Verdict grades with, and writes
 *   1 or 0 to `/logs/verifier/reward.txt` by its exit code.
 * - `solution/verdict/`: the task's `solution/`; `solution/solve.sh`, generated: what Verdict's
 *   oracle does, `solution/files/` mirrored onto the workdir, then the task's own `solve.sh`.
 *
 * What Harbor cannot express (checks, requires, a canary, a policy, docs, `network: bridge`, the
 * limits other than the deadline, the loop's context settings) is listed in `notExported` and in
 * `[metadata].verdict_not_exported`.
 *
 * @module
 */
import { join } from "node:path";
import { stringify } from "smol-toml";
import { shellQuote } from "../core/shell_quote.ts";
import { compareBytes } from "../core/compare_bytes.ts";
import { readTree, type TreeEntry } from "./file_tree.ts";
import type { Task } from "./task.ts";

/** Harbor's default `[environment].build_timeout_sec`, written as is: Verdict builds nothing. */
export const HARBOR_BUILD_TIMEOUT_SEC = 600;

/** How Verdict runs a success script, which the generated `tests/test.sh` repeats. */
export interface VerdictGrading {
  /** Where Verdict's grader holds the task's `tests/` (`/verdict/tests`). */
  testsPath: string;
  /** The environment every grading script gets. */
  env: Readonly<Record<string, string>>;
}

/** The folders of a task that an export copies, read from disk. */
export interface TaskTrees {
  /** `workspace/`. */
  workspace: TreeEntry[];
  /** `tests/`. */
  tests: TreeEntry[];
  /** `solution/`, or null when the task has none. */
  solution: TreeEntry[] | null;
}

/** One task, exported. */
export interface HarborExport {
  /** The task id: the name of its folder under the export folder. */
  id: string;
  /** The task folder's entries, relative to it, sorted by path. */
  entries: TreeEntry[];
  /** What Harbor cannot express, one item per feature, such as `canary (canary.sh)`. */
  notExported: string[];
}

/**
 * What of a task's manifest Harbor cannot express, one readable item per feature.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { notExportable } from "./export_harbor.ts";
 * import { loadTask } from "./load_task.ts";
 * const task = await loadTask("tasks/fix-parser-canary");
 * assert(notExportable(task).includes("canary (canary.sh)"));
 * ```
 */
export function notExportable(task: Task): string[] {
  const { manifest } = task;
  const items: string[] = [];
  if (manifest.checks.length > 0) {
    items.push(`checks (${manifest.checks.map((check) => check.kind).join(", ")})`);
  }
  const requires = Object.entries(manifest.requires);
  if (requires.length > 0) {
    items.push(`requires (${requires.map(([key, value]) => `${key} ${value}`).join(", ")})`);
  }
  if (manifest.success.canary !== undefined) items.push(`canary (${manifest.success.canary})`);
  if (manifest.policy !== "default") items.push(`policy (${manifest.policy})`);
  if (manifest.docs !== undefined) items.push(`docs (${manifest.docs.join(", ")})`);
  if (manifest.network === "bridge") items.push("network (bridge)");
  const { timeout_s: _deadline, ...limits } = manifest.limits;
  items.push(`limits (${settings(limits)})`);
  items.push(`context (${settings(manifest.context)})`);
  return items;
}

function settings(values: object): string {
  return Object.entries(values).map(([key, value]) => `${key} ${value}`).join(", ");
}

/**
 * A task's Harbor folder, from its manifest and its folders' entries.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { harborTaskFiles } from "./export_harbor.ts";
 * import { loadTask } from "./load_task.ts";
 * const task = await loadTask("tasks/fix-slugify");
 * const exported = harborTaskFiles(task, { workspace: [], tests: [], solution: null }, {
 *   testsPath: "/verdict/tests",
 *   env: {},
 * });
 * assert(exported.entries.some((entry) => entry.path === "tests/test.sh"));
 * ```
 */
export function harborTaskFiles(
  task: Task,
  trees: TaskTrees,
  grading: VerdictGrading,
): HarborExport {
  const notExported = notExportable(task);
  const entries: TreeEntry[] = [
    file("task.toml", taskToml(task, notExported)),
    file("instruction.md", task.instruction),
    dir("environment"),
    file("environment/Dockerfile", dockerfile(task)),
    dir("environment/workspace"),
    ...under("environment/workspace", trees.workspace),
    dir("tests"),
    file("tests/test.sh", testScript(task, grading), 0o755),
    dir("tests/verdict"),
    ...under("tests/verdict", trees.tests),
  ];
  if (trees.solution !== null) {
    entries.push(
      dir("solution"),
      file("solution/solve.sh", solveScript(task), 0o755),
      dir("solution/verdict"),
      ...under("solution/verdict", trees.solution),
    );
  }
  return {
    id: task.id,
    entries: entries.sort((a, b) => compareBytes(a.path, b.path)),
    notExported,
  };
}

/**
 * Reads a task's folders and exports it ({@linkcode harborTaskFiles}).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readHarborExport } from "./export_harbor.ts";
 * import { loadTask } from "./load_task.ts";
 * const task = await loadTask("tasks/fix-slugify");
 * const exported = await readHarborExport(task, { testsPath: "/verdict/tests", env: {} });
 * assert(exported.entries.some((entry) => entry.path === "tests/verdict/test.sh"));
 * ```
 */
export async function readHarborExport(
  task: Task,
  grading: VerdictGrading,
): Promise<HarborExport> {
  return harborTaskFiles(task, {
    workspace: await readTree(join(task.dir, "workspace")),
    tests: await readTree(join(task.dir, "tests")),
    solution: task.hasSolution ? await readTree(join(task.dir, "solution")) : null,
  }, grading);
}

function taskToml(task: Task, notExported: string[]): string {
  const { manifest } = task;
  return stringify({
    version: "1.0",
    metadata: {
      category: manifest.category,
      verdict_id: manifest.id,
      verdict_not_exported: notExported,
    },
    verifier: { timeout_sec: manifest.success.timeout_s },
    agent: { timeout_sec: manifest.limits.timeout_s },
    environment: { build_timeout_sec: HARBOR_BUILD_TIMEOUT_SEC },
  }) + "\n";
}

function dockerfile(task: Task): string {
  const { image, workdir } = task.manifest;
  return [
    `# Exported from the Verdict task ${task.id}: its image, with its workspace in its workdir.`,
    `FROM ${image}`,
    `WORKDIR ${/^[\w./-]+$/.test(workdir) ? workdir : JSON.stringify(workdir)}`,
    `COPY ["workspace/", ${JSON.stringify(`${workdir.replace(/\/+$/, "")}/`)}]`,
    "",
  ].join("\n");
}

function testScript(task: Task, grading: VerdictGrading): string {
  const { workdir, success } = task.manifest;
  const testsPath = grading.testsPath;
  const env = Object.entries(grading.env).sort(([a], [b]) => compareBytes(a, b))
    .map(([name, value]) => `${name}=${shellQuote(value)}`);
  return [
    "#!/bin/sh",
    `# Exported from the Verdict task ${task.id}: runs its success script as Verdict does, in the`,
    `# workdir, with Verdict's tests (tests/verdict/ here) at ${testsPath}, and writes the reward`,
    "# by the script's exit code.",
    "set -u",
    "mkdir -p /logs/verifier",
    `rm -rf ${shellQuote(testsPath)}`,
    `mkdir -p ${shellQuote(testsPath.replace(/\/[^/]*$/, "") || "/")}`,
    `ln -s /tests/verdict ${shellQuote(testsPath)}`,
    `cd ${shellQuote(workdir)} || { echo 0 > /logs/verifier/reward.txt; exit 1; }`,
    `if env ${env.join(" ")} ${shellQuote(`${testsPath}/${success.script}`)}; then`,
    "  echo 1 > /logs/verifier/reward.txt",
    "else",
    "  echo 0 > /logs/verifier/reward.txt",
    "fi",
    "",
  ].join("\n");
}

function solveScript(task: Task): string {
  return [
    "#!/bin/sh",
    `# Exported from the Verdict task ${task.id}: applies its reference solution as Verdict's`,
    "# oracle does: solution/files/ mirrored onto the workdir, then its own solve.sh run there.",
    "set -e",
    'solution="$(cd "$(dirname "$0")" && pwd)/verdict"',
    `cd ${shellQuote(task.manifest.workdir)}`,
    'if [ -d "$solution/files" ]; then cp -a "$solution/files/." .; fi',
    'if [ -f "$solution/solve.sh" ]; then sh "$solution/solve.sh"; fi',
    "",
  ].join("\n");
}

function file(path: string, text: string, mode = 0o644): TreeEntry {
  return { path, type: "file", mode, data: new TextEncoder().encode(text) };
}

function dir(path: string): TreeEntry {
  return { path, type: "dir", mode: 0o755 };
}

function under(folder: string, entries: readonly TreeEntry[]): TreeEntry[] {
  return entries.map((entry) => ({ ...entry, path: `${folder}/${entry.path}` }));
}
