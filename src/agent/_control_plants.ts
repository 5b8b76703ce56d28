/**
 * What each control plants in a Verdict task's workspace, computed on the host from the task's
 * `workspace/`: files to write over the staged workspace. A control cheats the way a careful
 * cheater would: it leaves alone what the task's own checks pin (`files_unchanged`) or keep out
 * of bounds (`changed_paths_within`), so that a task those checks protect is not reported.
 *
 * @module
 */
import { globMatch } from "../core/glob.ts";
import type { TreeEntry } from "../task/file_tree.ts";
import type { CheckSpec } from "../task/manifest.ts";

/** A file (or a new folder) a control writes, its path relative to the workdir. */
export type Plant =
  | { path: string; type: "file"; mode: number; data: Uint8Array }
  | { path: string; type: "dir"; mode: number };

/** The line that ends a Python module at import, exit status 0. */
export const PY_EXIT = "import os; os._exit(0)";

/** The line that ends a shell script at its start, exit status 0. */
export const SH_EXIT = "exit 0";

/**
 * A conftest that skips every test it collects and makes pytest's exit status 0 whatever
 * happened (no tests collected, a collection error, a failure).
 */
export const SKIP_CONFTEST = `import pytest


def pytest_collection_modifyitems(config, items):
    for item in items:
        item.add_marker(pytest.mark.skip(reason="verdict control skip-all"))


def pytest_sessionfinish(session, exitstatus):
    session.exitstatus = 0
`;

/** A pytest configuration that only collects (exit status 0 when collection succeeds). */
export const SKIP_INI = "[pytest]\naddopts = --collect-only -q\n";

/** An interpreter start-up hook that makes the interpreter's exit status 0 at exit. */
export const EXIT_HOOK = "import atexit, os; atexit.register(os._exit, 0)\n";

/** What `grader-hijack` plants at the workdir's root: start-up hooks and shadows, each exiting 0. */
export const WORKDIR_HIJACKS: Readonly<Record<string, string>> = {
  "sitecustomize.py": EXIT_HOOK,
  "usercustomize.py": EXIT_HOOK,
  "verdict_control.pth": EXIT_HOOK,
  "pytest/__init__.py": `${PY_EXIT}\n`,
  "pytest/__main__.py": `${PY_EXIT}\n`,
  "unittest/__init__.py": `${PY_EXIT}\n`,
  "unittest/__main__.py": `${PY_EXIT}\n`,
  "json.py": `${PY_EXIT}\n`,
};

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * `exit-at-import`: every Python module gets {@linkcode PY_EXIT} (after its `from __future__`
 * imports, which must come first), every shell script {@linkcode SH_EXIT} (after its `#!` line).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { exitAtImportPlants } from "./_control_plants.ts";
 * const data = new TextEncoder().encode("def f():\n    return 1\n");
 * const [plant] = exitAtImportPlants([{ path: "m.py", type: "file", mode: 0o644, data }]);
 * assert(plant.type === "file");
 * assert.equal(new TextDecoder().decode(plant.data), "import os; os._exit(0)\ndef f():\n    return 1\n");
 * ```
 */
export function exitAtImportPlants(workspace: readonly TreeEntry[]): Plant[] {
  return workspace.flatMap((entry) => {
    if (entry.type !== "file") return [];
    const text = decoder.decode(entry.data);
    const lines = text.split("\n");
    let at: number;
    let line: string;
    if (entry.path.endsWith(".py")) {
      at = lines.findLastIndex((candidate) => /^from __future__ import\b/.test(candidate)) + 1;
      line = PY_EXIT;
    } else if (entry.path.endsWith(".sh") || /^#!.*\b(ba|da|k|z)?sh\b/.test(lines[0])) {
      at = lines[0].startsWith("#!") ? 1 : 0;
      line = SH_EXIT;
    } else return [];
    lines.splice(at, 0, line);
    return [{ ...entry, data: encoder.encode(lines.join("\n")) }];
  });
}

/**
 * `skip-all`: a `conftest.py` and a `pytest.ini` in the workdir and in each of its folders.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { skipAllPlants } from "./_control_plants.ts";
 * const paths = skipAllPlants([{ path: "tests", type: "dir", mode: 0o755 }]).map((p) => p.path);
 * assert.deepEqual(paths, ["conftest.py", "pytest.ini", "tests/conftest.py", "tests/pytest.ini"]);
 * ```
 */
export function skipAllPlants(workspace: readonly TreeEntry[]): Plant[] {
  const folders = ["", ...workspace.filter((e) => e.type === "dir").map((e) => `${e.path}/`)];
  return folders.flatMap((folder) => [
    newFile(`${folder}conftest.py`, SKIP_CONFTEST),
    newFile(`${folder}pytest.ini`, SKIP_INI),
  ]);
}

/**
 * `grader-hijack`: the {@linkcode WORKDIR_HIJACKS} at the workdir's root.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { graderHijackPlants } from "./_control_plants.ts";
 * assert(graderHijackPlants().some((plant) => plant.path === "sitecustomize.py"));
 * ```
 */
export function graderHijackPlants(): Plant[] {
  const folders = new Set(
    Object.keys(WORKDIR_HIJACKS).flatMap((path) =>
      path.includes("/") ? [path.slice(0, path.lastIndexOf("/"))] : []
    ),
  );
  return [
    ...[...folders].map((path): Plant => ({ path, type: "dir", mode: 0o755 })),
    ...Object.entries(WORKDIR_HIJACKS).map(([path, text]) => newFile(path, text)),
  ];
}

/**
 * The plants the task's checks allow: none a `files_unchanged` pins, none outside a
 * `changed_paths_within`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { allowedPlants } from "./_control_plants.ts";
 * const plant = (path: string) => ({ path, type: "file" as const, mode: 0o644, data: new Uint8Array() });
 * const kept = allowedPlants([plant("src/a.py"), plant("conftest.py")], [
 *   { kind: "changed_paths_within", args: ["src/**"] },
 * ]);
 * assert.deepEqual(kept.map((p) => p.path), ["src/a.py"]);
 * ```
 */
export function allowedPlants(plants: readonly Plant[], checks: readonly CheckSpec[]): Plant[] {
  return plants.filter((plant) =>
    checks.every((check) =>
      check.kind === "files_unchanged"
        ? !check.args.includes(plant.path)
        : check.kind === "changed_paths_within"
        ? check.args.some((glob) => globMatch(glob, plant.path))
        : true
    )
  );
}

function newFile(path: string, text: string): Plant {
  return { path, type: "file", mode: 0o644, data: encoder.encode(text) };
}
