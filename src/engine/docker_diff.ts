/**
 * `docker diff`'s output read: the paths a container changed against its image, or an error
 * naming the line that is not a change.
 *
 * @module
 */
import { InfrastructureError } from "../core/errors.ts";
import type { FilesystemChange } from "./sandbox.ts";

/**
 * `docker diff` printed a line that is not a change: most likely the rest of a path with a line
 * break in its name.
 */
export class UnreadableDiffError extends InfrastructureError {
  /** The line. */
  readonly line: string;
  /** Makes the error. */
  constructor(line: string) {
    super(`docker diff printed a line Verdict cannot read: ${line}`);
    this.name = "UnreadableDiffError";
    this.line = line;
  }
}

const DIFF_KINDS: Record<string, FilesystemChange["kind"]> = {
  A: "added",
  C: "changed",
  D: "deleted",
};

/**
 * Parses `docker diff` output (`A /path`, `C /path`, `D /path`, one per line).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseDockerDiff } from "./docker_diff.ts";
 * assert.deepEqual(parseDockerDiff("C /etc\nD /etc/issue\n"), [
 *   { kind: "changed", path: "/etc" },
 *   { kind: "deleted", path: "/etc/issue" },
 * ]);
 * ```
 */
export function parseDockerDiff(text: string): FilesystemChange[] {
  const changes: FilesystemChange[] = [];
  for (const line of text.split("\n")) {
    if (line === "") continue;
    const kind = DIFF_KINDS[line[0]];
    if (kind === undefined || line[1] !== " " || !line.startsWith("/", 2)) {
      throw new UnreadableDiffError(line);
    }
    changes.push({ kind, path: line.slice(2) });
  }
  return changes;
}
