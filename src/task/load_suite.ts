/**
 * A suite: the tasks found at one or more paths (a task folder, or a folder of task folders),
 * with duplicate ids refused and a digest over every byte of every task.
 *
 * @module
 */
import { join } from "node:path";
import { canonicalJson } from "../core/canonical_json.ts";
import { InputError, type InputProblem, UsageError } from "../core/errors.ts";
import { type Sha256Hex, sha256Hex } from "../core/hash.ts";
import { nearest } from "../core/suggest.ts";
import { compareBytes } from "../core/compare_bytes.ts";
import { readTree } from "./file_tree.ts";
import { isHarborTaskFolder, loadHarborTask } from "./harbor_task.ts";
import { isTaskFolder, loadTask } from "./load_task.ts";
import type { Task } from "./task.ts";

/**
 * Tasks loaded from the given paths.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { loadSuite, type Suite } from "./load_suite.ts";
 * const suite: Suite = await loadSuite(["tasks/fix-slugify", "tasks/fix-csv-quoting"]);
 * assert.deepEqual(suite.tasks.map((task) => task.id), ["fix-csv-quoting", "fix-slugify"]);
 * assert.match(suite.digest, /^[0-9a-f]{64}$/);
 * ```
 */
export interface Suite {
  /** The tasks, sorted by id. */
  tasks: Task[];
  /** sha256 over every task's id and full folder contents (manifest, workspace, tests, ...). */
  digest: Sha256Hex;
}

/**
 * Finds the task folders at each path: the path itself when it holds `task.yaml` (a Verdict task)
 * or `task.toml` (a Harbor task), otherwise its immediate subfolders that do.
 *
 * @throws {UsageError} when a path does not exist or holds no task.
 */
export async function findTaskFolders(paths: readonly string[]): Promise<string[]> {
  const folders: string[] = [];
  for (const path of paths) {
    let info: Deno.FileInfo;
    try {
      info = await Deno.stat(path);
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) {
        throw new UsageError(`${path} does not exist: pass a task folder or a folder of tasks`);
      }
      throw error;
    }
    if (!info.isDirectory) {
      throw new UsageError(`${path} is not a folder: pass a task folder or a folder of tasks`);
    }
    if (await isTaskFolder(path)) {
      folders.push(path);
      continue;
    }
    const found: string[] = [];
    for await (const entry of Deno.readDir(path)) {
      if (entry.isDirectory && await isTaskFolder(join(path, entry.name))) {
        found.push(join(path, entry.name));
      }
    }
    if (found.length === 0) {
      throw new UsageError(
        `no task.yaml or task.toml in ${path} or its subfolders: pass a task folder or a ` +
          "folder of tasks",
      );
    }
    folders.push(...found.sort(compareBytes));
  }
  return folders;
}

/**
 * Loads every task at the paths, refusing duplicate ids, and digests the suite.
 *
 * @example
 * ```ts
 * import { loadSuite } from "./load_suite.ts";
 * const suite = await loadSuite(["tasks/"]);
 * console.log(suite.tasks.length, suite.digest);
 * ```
 * @throws {InputError} listing every bad manifest and every duplicate id (exit 2).
 */
export async function loadSuite(paths: readonly string[]): Promise<Suite> {
  const folders = await findTaskFolders(paths);
  const problems: InputProblem[] = [];
  const tasks: Task[] = [];
  for (const folder of folders) {
    try {
      tasks.push(await loadTaskFolder(folder));
    } catch (error) {
      if (error instanceof InputError) problems.push(...error.problems);
      else throw error;
    }
  }
  const seen = new Map<string, Task>();
  for (const task of tasks) {
    const first = seen.get(task.id);
    if (first) {
      problems.push({
        file: manifestFile(task),
        field: task.harbor ? "" : "id",
        problem: `'${task.id}' is already the id of ${manifestFile(first)}` +
          (task.harbor ? " (a Harbor task's id is its folder's name)" : ""),
        fix: task.harbor
          ? "rename one of the folders: every task in a suite needs its own id"
          : "give every task in a suite its own id",
      });
    } else seen.set(task.id, task);
  }
  if (problems.length > 0) throw new InputError(problems);
  tasks.sort((a, b) => compareBytes(a.id, b.id));
  return { tasks, digest: await suiteDigest(tasks) };
}

/**
 * Loads one task folder, a Verdict task (`task.yaml`) or a Harbor task (`task.toml`).
 *
 * @example
 * ```ts
 * import { loadTaskFolder } from "./load_suite.ts";
 * const task = await loadTaskFolder("tasks/fix-slugify");
 * console.log(task.harbor === undefined); // true: a Verdict task
 * ```
 * @throws {InputError} listing every problem found (exit 2).
 */
export async function loadTaskFolder(dir: string): Promise<Task> {
  return await isHarborTaskFolder(dir) ? loadHarborTask(dir) : loadTask(dir);
}

/**
 * Keeps the tasks whose ids were asked for with `--task`, in suite order.
 *
 * @throws {UsageError} naming an unknown id and the nearest known one.
 */
export function selectTasks(suite: Suite, ids: readonly string[]): Task[] {
  if (ids.length === 0) return suite.tasks;
  const known = suite.tasks.map((task) => task.id);
  for (const id of ids) {
    if (!known.includes(id)) {
      const guess = nearest(id, known);
      throw new UsageError(
        `no task '${id}' in the suite` + (guess ? `; did you mean '${guess}'?` : ""),
      );
    }
  }
  return suite.tasks.filter((task) => ids.includes(task.id));
}

// The file that gives a task its id: task.toml for a Harbor task, task.yaml for a Verdict task.
function manifestFile(task: Task): string {
  return join(task.dir, task.harbor ? "task.toml" : "task.yaml");
}

async function suiteDigest(tasks: readonly Task[]): Promise<Sha256Hex> {
  const parts = [];
  for (const task of tasks) {
    const files = (await readTree(task.dir)).map((entry) =>
      entry.type === "file"
        ? { path: entry.path, mode: entry.mode, sha256: sha256Hex(entry.data) }
        : entry.type === "dir"
        ? { path: entry.path, mode: entry.mode }
        : { path: entry.path, target: entry.target }
    );
    parts.push({ id: task.id, files });
  }
  return sha256Hex(`verdict.suite/1\n${canonicalJson(parts)}`);
}
