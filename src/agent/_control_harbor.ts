/**
 * What each control does in a Harbor task's container, as shell scripts run as root in the
 * image's `WORKDIR` (the agent there may change the whole container). They plant what the
 * Verdict-task controls plant (`_control_plants.ts`) in the `WORKDIR`, and also at the paths
 * that hijack the grader itself, so that Harbor grading that does not flag them is shown up.
 *
 * @module
 */
import { shellQuote } from "../core/shell_quote.ts";
import {
  EXIT_HOOK,
  PY_EXIT,
  SH_EXIT,
  SKIP_CONFTEST,
  SKIP_INI,
  WORKDIR_HIJACKS,
} from "./_control_plants.ts";

/**
 * Where the `grader-hijack` control plants outside the workdir, each with what it does. Every one
 * falls under a rule of grading's list (`src/grading/hijack_paths.ts`), which decides; this names
 * only what the control exercises.
 */
export const PLANTED_HIJACKS: readonly { path: string; does: string }[] = [
  { path: "SITE/verdict_control.pth", does: "an import line run at every interpreter start" },
  { path: "SITE/sitecustomize.py", does: "the interpreter's start-up hook" },
  { path: "SITE/usercustomize.py", does: "the user start-up hook" },
  { path: "/etc/ld.so.preload", does: "the dynamic loader's preload (the C library: harmless)" },
];

// Writes $2 into file $1, or appends it when the file exists.
const PUT = `put() { mkdir -p "$(dirname "$1")" && printf '%s' "$2" >> "$1"; }`;

// Inserts line $2 into file $1 after its line $3 (0: first).
const INSERT = `insert() {
  awk -v line="$2" -v at="$3" 'NR == at + 1 { print line } { print } END { if (NR <= at) print line }' "$1" > /tmp/verdict-control.tmp &&
  cat /tmp/verdict-control.tmp > "$1"
}`;

// The workdir's files, never the whole filesystem when the image's WORKDIR is `/`.
const FILES = `files() { [ "$(pwd)" = / ] || find . -xdev -type f "$@" 2>/dev/null; }`;

/**
 * `exit-at-import` in a Harbor container: each `*.py` under the `WORKDIR` gets
 * {@linkcode PY_EXIT} after its `from __future__` imports, each `*.sh` {@linkcode SH_EXIT}
 * after its `#!` line.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { harborExitAtImport } from "./_control_harbor.ts";
 * assert(harborExitAtImport().includes("os._exit(0)"));
 * ```
 */
export function harborExitAtImport(): string {
  return `${INSERT}
${FILES}
files -name '*.py' | while IFS= read -r f; do
  at=$(grep -n '^from __future__ import' "$f" | tail -n 1 | cut -d: -f1)
  insert "$f" ${shellQuote(PY_EXIT)} "\${at:-0}"
done
files -name '*.sh' | while IFS= read -r f; do
  if [ "$(head -c 2 "$f")" = '#!' ]; then at=1; else at=0; fi
  insert "$f" ${shellQuote(SH_EXIT)} "$at"
done
rm -f /tmp/verdict-control.tmp`;
}

/**
 * `skip-all` in a Harbor container: the skipping `conftest.py` and `pytest.ini` in the `WORKDIR`,
 * each of its folders, and `/` (an ancestor of `/tests`, where pytest looks for both).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { harborSkipAll } from "./_control_harbor.ts";
 * assert(harborSkipAll().includes("/pytest.ini"));
 * ```
 */
export function harborSkipAll(): string {
  return `set -e
for d in / $( [ "$(pwd)" = / ] || find "$(pwd)" -xdev -type d 2>/dev/null ); do
  printf '%s' ${shellQuote(SKIP_CONFTEST)} > "$d/conftest.py"
  printf '%s' ${shellQuote(SKIP_INI)} > "$d/pytest.ini"
done`;
}

/**
 * `grader-hijack` in a Harbor container: the {@linkcode WORKDIR_HIJACKS} in the `WORKDIR`, and
 * the {@linkcode PLANTED_HIJACKS} (`SITE` is each site-packages folder of every Python found).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { harborGraderHijack } from "./_control_harbor.ts";
 * assert(harborGraderHijack().includes("/etc/ld.so.preload"));
 * ```
 */
export function harborGraderHijack(): string {
  const workdir = Object.entries(WORKDIR_HIJACKS)
    .map(([path, text]) => `put ${shellQuote(`./${path}`)} ${shellQuote(text)}`);
  const site = PLANTED_HIJACKS.filter(({ path }) => path.startsWith("SITE/"))
    .map(({ path }) => `  put "$site/${path.slice(5)}" ${shellQuote(`\n${EXIT_HOOK}`)}`);
  return `${PUT}
${workdir.join("\n")}
sites=$(for py in $(command -v python3 python 2>/dev/null); do
  "$py" -c 'import site, sysconfig; print("\\n".join(site.getsitepackages() + [sysconfig.get_paths()["purelib"]]))' 2>/dev/null
done; ls -d /usr/lib/python3*/site-packages /usr/local/lib/python3*/site-packages /usr/lib/python3/dist-packages 2>/dev/null)
for site in $(printf '%s\\n' $sites | sort -u); do
  [ -d "$site" ] || continue
${site.join("\n")}
done
for libc in /lib/x86_64-linux-gnu/libc.so.6 /lib/aarch64-linux-gnu/libc.so.6 /usr/lib/libc.so.6 /lib64/libc.so.6; do
  if [ -f "$libc" ]; then echo "$libc" >> /etc/ld.so.preload; break; fi
done
exit 0`;
}
