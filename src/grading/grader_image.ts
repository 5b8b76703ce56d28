/**
 * A grading container before any trial: the files its image holds (the task's `tests/`, owned by
 * root, the test runners' report file, Python's path set up) and the environment every grading
 * script runs with. A Harbor task's grader shares the environment ({@linkcode GRADER_ENV}).
 *
 * @module
 */
import { AGENT_OWNER } from "../engine/sandbox.ts";
import { packOwnedTar } from "../engine/tar.ts";
import type { TreeEntry } from "../task/file_tree.ts";
import { TESTS_REPORT } from "./_evidence.ts";
import { EVIDENCE_MODULES, HOOKS_IMPORT, TESTS_REPORT_ENV } from "./_evidence_hooks.ts";
import { GRADER_PYTHON_FOLDER, pythonPathFiles } from "./python_path.ts";

/** Where `tests/` is staged in the grading container. */
export const TESTS_PATH = "/verdict/tests";

/**
 * The files a grading container's image holds before any trial: the task's workdir, empty and
 * owned by the agent's user; `tests/` at `/verdict/tests`, owned by root and writable by no
 * one else, so that nothing the success script runs can change them; the file the test runners
 * report to, the agent user's, empty, in a folder of root's (so it can be written, never replaced
 * by a link or buried among other files); and, root's, what puts the workdir at the end of Python's
 * `sys.path` and the runners' reporting hooks (`python_path.ts`, `_evidence_hooks.ts`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { graderImageTar } from "./grader_image.ts";
 * const tar = graderImageTar("/workspace", [
 *   { path: "test.sh", type: "file", mode: 0o755, data: new TextEncoder().encode("exit 0") },
 * ]);
 * assert(tar.length % 512 === 0);
 * ```
 */
export function graderImageTar(workdir: string, tests: readonly TreeEntry[]): Uint8Array {
  const testsPath = TESTS_PATH.slice(1);
  return packOwnedTar([
    {
      entries: [{ path: workdir.replace(/^\/+/, ""), type: "dir", mode: 0o755 }],
      options: AGENT_OWNER,
    },
    {
      entries: [
        { path: posixParent(testsPath), type: "dir", mode: 0o755 },
        { path: testsPath, type: "dir", mode: 0o755 },
        ...tests.map((entry) => ({
          ...entry,
          path: `${testsPath}/${entry.path}`,
          ...("mode" in entry ? { mode: entry.mode & ~0o022 } : {}),
        })),
        { path: GRADER_PYTHON_FOLDER.slice(1), type: "dir", mode: 0o755 },
        { path: posixParent(TESTS_REPORT).slice(1), type: "dir", mode: 0o755 },
        ...pythonPathFiles(workdir, { imports: [HOOKS_IMPORT], modules: EVIDENCE_MODULES }),
      ],
      options: { uid: 0, gid: 0 },
    },
    {
      entries: [{ path: TESTS_REPORT.slice(1), type: "file", mode: 0o644, data: new Uint8Array() }],
      options: AGENT_OWNER,
    },
  ]);
}

/** The folder a POSIX path is in. */
function posixParent(path: string): string {
  return path.slice(0, path.lastIndexOf("/"));
}

/**
 * The environment of every grading script, success and canary alike. The working folder never
 * comes first on Python's `sys.path` (`python -m pytest` would otherwise run a `pytest` package
 * the agent left there), user site-packages are not read, no bytecode is written, and bytecode is
 * read only from `/usr/lib/verdict-pycache`, which the image fills or not (scripts/build-images.sh
 * compiles its Python there), never from a `__pycache__` in the tree; pytest
 * loads no plugin it is not told to (it would load any `*.dist-info` with a `pytest11` entry point
 * found on `sys.path`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { GRADER_ENV } from "./grader_image.ts";
 * assert(GRADER_ENV.PYTHONSAFEPATH === "1");
 * ```
 */
export const GRADER_ENV: Readonly<Record<string, string>> = {
  PYTHONSAFEPATH: "1",
  PYTHONNOUSERSITE: "1",
  PYTHONDONTWRITEBYTECODE: "1",
  PYTHONPYCACHEPREFIX: "/usr/lib/verdict-pycache",
  PYTEST_DISABLE_PLUGIN_AUTOLOAD: "1",
};

/**
 * Whether a sealed path is a bytecode cache the grader must not get: every file sets the same
 * staging mtime, so a `.pyc` forged with that mtime and its source's size would be taken as
 * current while the source itself looks untouched.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isBytecodeCache } from "./grader_image.ts";
 * assert(isBytecodeCache("pkg/__pycache__/mod.cpython-311.pyc"));
 * assert(!isBytecodeCache("pkg/mod.py"));
 * ```
 */
export function isBytecodeCache(path: string): boolean {
  return path.split("/").includes("__pycache__") || /\.py[co]$/.test(path);
}

/**
 * The environment of a Verdict task's grading scripts: {@linkcode GRADER_ENV} and the file the
 * test runners report to.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { VERDICT_GRADER_ENV } from "./grader_image.ts";
 * assert.equal(VERDICT_GRADER_ENV.VERDICT_TESTS_REPORT, "/verdict/evidence/tests");
 * ```
 */
export const VERDICT_GRADER_ENV: Readonly<Record<string, string>> = {
  ...GRADER_ENV,
  [TESTS_REPORT_ENV]: TESTS_REPORT,
};
