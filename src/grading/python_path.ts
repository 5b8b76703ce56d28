/**
 * Where Python finds the workspace in a grader: at the END of `sys.path`, after the standard
 * library, the installed packages and the grader's own folder. A root-owned `.pth` file in each
 * site-packages folder the grader's image may have runs {@linkcode SETTLE_MODULE} at every
 * interpreter start (child processes and `python -I` included: `.pth` files are read unless `-S`
 * is given), so `python -m pytest`, `python -m unittest`, `python -c 'import pkg'` from the
 * workdir import the workspace as on the author's machine, while a workspace `json.py`, `pytest/`
 * or `_pytest/` cannot stand in for what is installed. `PYTHONSAFEPATH` (set by the grader) keeps
 * `-m` and `-c` from putting the working folder first; a script (`python tools/tool.py`) still
 * gets its own folder first, as Python gives it without `PYTHONSAFEPATH`, unless `-I` is given.
 *
 * Python reads a `.pth` file only in its site-packages folders, which depend on the image: the
 * file goes in each folder of {@linkcode PYTHON_SITE_FOLDERS} (Debian and Ubuntu's, the official
 * `python` images', Alpine's and Fedora's, for CPython 3.8 to 3.14). Each run moves the workdir
 * back to the end, so it ends up after every site folder read before the last one. An image whose
 * Python lives elsewhere (a virtual environment, conda, pyenv) does not get it: such a task puts
 * the workdir on `sys.path` itself (a `conftest.py` that appends it).
 *
 * @module
 */
import type { TarEntry } from "../engine/tar.ts";

/** The grader's own Python folder, root-owned: it comes before the workdir on `sys.path`. */
export const GRADER_PYTHON_FOLDER = "/verdict/grader";

/** The module every `.pth` runs; it lives in {@linkcode GRADER_PYTHON_FOLDER}. */
export const SETTLE_MODULE = "verdict_grader_path";

/** The `.pth` file's name: last in its folder's order, so it runs after the image's own. */
export const PTH_NAME = "~verdict-grader.pth";

const MINORS = [8, 9, 10, 11, 12, 13, 14];

/**
 * The site-packages folders the `.pth` goes in, each the last one its interpreter reads on at
 * least one common layout (a folder that does not exist is made, and read by no interpreter
 * that does not list it).
 */
export const PYTHON_SITE_FOLDERS: readonly string[] = [
  "/usr/lib/python3/dist-packages",
  ...MINORS.flatMap((minor) => [
    `/usr/local/lib/python3.${minor}/site-packages`,
    `/usr/local/lib/python3.${minor}/dist-packages`,
    `/usr/lib/python3.${minor}/site-packages`,
    `/usr/lib/python3.${minor}/dist-packages`,
  ]),
];

/**
 * The `.pth` file's text for a workdir: the grader's folder, the line that settles the workdir at
 * the end of `sys.path`, then one `import` line per extra module (from the grader's folder).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { pthEntry } from "./python_path.ts";
 * assert.equal(
 *   pthEntry("/workspace"),
 *   "/verdict/grader\nimport verdict_grader_path; verdict_grader_path.settle('/workspace', '/verdict/grader')\n",
 * );
 * ```
 */
export function pthEntry(workdir: string, imports: readonly string[] = []): string {
  const quoted = (text: string) => `'${text.replace(/[\\']/g, (c) => `\\${c}`)}'`;
  return [
    GRADER_PYTHON_FOLDER,
    `import ${SETTLE_MODULE}; ${SETTLE_MODULE}.settle(${quoted(workdir)}, ${
      quoted(GRADER_PYTHON_FOLDER)
    })`,
    ...imports,
  ].map((line) => `${line}\n`).join("");
}

/**
 * The files that put `workdir` at the end of `sys.path` in an image (paths relative to `/`, to
 * be packed owned by root): the `.pth` in every site folder, the settling module and `modules`
 * (name to Python source) in {@linkcode GRADER_PYTHON_FOLDER}. Only files: folders that exist keep
 * their owner and mode, missing ones are made by the engine.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { pythonPathFiles } from "./python_path.ts";
 * const files = pythonPathFiles("/workspace");
 * assert(files.some((file) => file.path === "usr/lib/python3/dist-packages/~verdict-grader.pth"));
 * ```
 */
export function pythonPathFiles(
  workdir: string,
  { imports = [], modules = {} }: {
    imports?: readonly string[];
    modules?: Record<string, string>;
  } = {},
): TarEntry[] {
  const file = (path: string, text: string): TarEntry => ({
    path: path.replace(/^\/+/, ""),
    type: "file",
    mode: 0o644,
    data: new TextEncoder().encode(text),
  });
  const pth = pthEntry(workdir, imports);
  return [
    ...PYTHON_SITE_FOLDERS.map((folder) => file(`${folder}/${PTH_NAME}`, pth)),
    ...Object.entries({ [SETTLE_MODULE]: SETTLE_SOURCE, ...modules }).map(([name, source]) =>
      file(`${GRADER_PYTHON_FOLDER}/${name}.py`, source)
    ),
  ];
}

/** The settling module's Python source. */
const SETTLE_SOURCE =
  `"""Verdict's grader: puts the task's workdir at the end of sys.path (see python_path.ts).

settle() runs from a .pth file in each site-packages folder, so the last run leaves the grader's
folder and then the workdir after every site folder. With PYTHONSAFEPATH set by the grader, a
script (not -m, -c or -I) gets its own folder first, as Python gives it without PYTHONSAFEPATH.
site imports its start-up hooks after every .pth: where the image has none of its own, a
placeholder stands in, so that a workdir's sitecustomize.py is never taken for the image's.
"""
import importlib.machinery
import os
import sys
import types

_script_folder = []
_HOOKS = ("sitecustomize", "usercustomize")
_placeholders = {}


def _guard_hooks(workdir):
    inside = os.path.join(workdir, "")
    outside = [
        entry for entry in sys.path
        if entry not in ("", ".", workdir) and not entry.startswith(inside)
    ]
    for name in _HOOKS:
        if importlib.machinery.PathFinder.find_spec(name, outside) is None:
            sys.modules.setdefault(name, _placeholders.setdefault(name, types.ModuleType(name)))
        elif name in _placeholders and sys.modules.get(name) is _placeholders[name]:
            del sys.modules[name]


def settle(workdir, folder):
    keep = len(_script_folder)
    rest = [entry for entry in sys.path[keep:] if entry not in (folder, workdir)]
    rest += [entry for entry in (folder, workdir) if os.path.isdir(entry)]
    sys.path[keep:] = rest
    script = sys.argv[0] if sys.argv else ""
    if (
        not _script_folder
        and getattr(sys.flags, "safe_path", False)
        and not sys.flags.isolated
        and os.environ.get("PYTHONSAFEPATH")
        and script not in ("", "-c", "-m", "-")
        and os.path.isfile(script)
    ):
        _script_folder.append(os.path.dirname(os.path.realpath(script)))
        sys.path.insert(0, _script_folder[0])
    _guard_hooks(workdir)
`;
