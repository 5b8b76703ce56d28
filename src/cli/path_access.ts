/**
 * The paths a command was given, checked against the process's permissions before it starts, so a
 * path outside what Verdict may touch is a usage error naming the flag (exit 2) rather than a
 * permission failure halfway through a run.
 *
 * @module
 */
import { dirname, join } from "node:path";
import { UsageError } from "../core/errors.ts";
import { escapedTarget } from "../core/link_target.ts";
import { type Command, type CommandContext, taskPaths } from "./command.ts";
import { resolveHome } from "./state.ts";
import { statOrNull } from "./_stat_or_null.ts";

/**
 * How the permissions confine files, shown in every refusal, and where to keep files instead. The
 * installed command and the compiled binary may read and write the folder they run from (their
 * flags say `.`); `deno task verdict` runs from Verdict's own folder under deno.json's
 * `permissions.verdict`, which names that folder. Only `deno run -P=verdict` started elsewhere
 * runs from a folder outside its scope.
 */
function confinement(): { why: string; inside: string } {
  const folder = Deno.cwd();
  if (Deno.permissions.querySync({ name: "write", path: folder }).state === "granted") {
    return {
      why: `verdict reads and writes only inside the folder it runs from, ${folder}`,
      inside: `inside ${folder}, or run verdict from a folder that holds it`,
    };
  }
  return {
    why: `verdict reads and writes only inside Verdict's own folder here (deno.json ` +
      `"permissions.verdict"), and the folder it runs from, ${folder}, is outside it`,
    inside: `inside Verdict's folder, or install the command (deno task install) and run ` +
      `verdict from your project folder`,
  };
}

/**
 * Throws a {@linkcode UsageError} for the first path argument the process may not read or write
 * (task paths and `FILE` flags are read, `--home` and `--html` are written), either as written or
 * where its symlinks lead: Deno checks the path as written, so a link inside the project folder
 * would otherwise reach a file outside it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { checkPathAccess } from "./path_access.ts";
 * import { evalCommand } from "./commands/eval.ts";
 * import { memoryIo } from "./io.ts";
 * // Run where the project folder is readable and /etc is not writable (as under verdict's set):
 * const values = { home: "/etc/verdict" };
 * assert.throws(
 *   () => checkPathAccess(evalCommand, { io: memoryIo(), values, positionals: ["tasks"] }),
 *   /cannot write \/etc\/verdict, given as --home/,
 * );
 * ```
 */
export function checkPathAccess(
  command: Command,
  { io, values, positionals }: CommandContext,
): void {
  if (command.takesTaskPaths) {
    const given = positionals.length > 0 ? "a task path" : "the default suite";
    for (const path of taskPaths(positionals)) requireAccess("read", path, given);
  }
  for (const [name, spec] of Object.entries(command.options)) {
    if (spec.path === undefined) continue;
    if (name === "home") {
      const given = typeof values.home === "string" && values.home !== ""
        ? "--home"
        : io.env("VERDICT_HOME")
        ? "VERDICT_HOME"
        : "the default state directory";
      requireAccess(spec.path === "read" ? "read" : "write", resolveHome(values, io), given);
      continue;
    }
    for (const path of [values[name]].flat()) {
      if (typeof path !== "string" || spec.keywords?.includes(path)) continue;
      requireAccess(spec.path === "read" ? "read" : "write", path, `--${name}`);
      if (spec.path === "write") requireWritableFile(path, `--${name}`);
    }
  }
}

/**
 * The message for a permission failure the pre-flight check could not foresee (a path found while
 * working, such as the task folders a recorded run names): what was refused, and why.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { notPermittedMessage } from "./path_access.ts";
 * assert(notPermittedMessage(new Error("Requires read access to \"/x\"")).includes("/x"));
 * ```
 */
export function notPermittedMessage(error: Error): string {
  const what = error.message.split(", run again with")[0];
  const { why, inside } = confinement();
  return `not permitted: ${what}; ${why}. Fix: keep task folders, the state directory and ` +
    `report files ${inside}`;
}

function requireAccess(access: "read" | "write", path: string, given: string): void {
  if (path === "") throw new UsageError(`${given} is empty: give a path`);
  if (Deno.permissions.querySync({ name: access, path }).state === "granted") {
    const target = followLinks(path, access, given);
    if (target === undefined) return;
    const { why, inside } = confinement();
    throw new UsageError(
      `cannot ${access} ${path}, given as ${given}: a symlink leads it to ${target}, and ` +
        `${why}. Fix: give a path that no link leads out of, ${inside}`,
    );
  }
  const { why, inside } = confinement();
  throw new UsageError(
    `cannot ${access} ${path}, given as ${given}: ${why}. Fix: give a path ${inside}`,
  );
}

// A file to write: its folder must exist, and it must not be a folder itself.
function requireWritableFile(path: string, given: string): void {
  if (statOrNull(path)?.isDirectory) {
    throw new UsageError(
      `${path}, given as ${given}, is a folder. Fix: name a file, such as ` +
        `${join(path, "report.html")}`,
    );
  }
  const folder = dirname(path);
  if (!statOrNull(folder)?.isDirectory) {
    throw new UsageError(
      `the folder of ${path}, given as ${given}, does not exist. Fix: create ` +
        `${folder} first, or give a path in an existing folder`,
    );
  }
}

function followLinks(path: string, access: "read" | "write", given: string): string | undefined {
  try {
    return escapedTarget(path, access);
  } catch (error) {
    if (!(error instanceof Deno.errors.FilesystemLoop)) throw error;
    throw new UsageError(
      `cannot follow ${path}, given as ${given}: its symlinks form a loop. Fix: give a real path`,
    );
  }
}
