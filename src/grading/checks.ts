/**
 * Built-in checks over sealed snapshots. A check sees the initial and the final snapshot and the
 * files' bytes, and nothing else: not the conversation, not a live container.
 *
 * @module
 */
import { globMatch } from "../core/glob.ts";
import { diffSnapshots, type Snapshot, type SnapshotChange } from "../workspace/snapshot.ts";
import type { CheckSpec } from "../task/manifest.ts";

/** What a check can read: two sealed snapshots and the bytes of their files. */
export interface CheckInput {
  /** The workspace as staged, before the agent started. */
  initial: Snapshot;
  /** The workspace as sealed, after the agent stopped. */
  final: Snapshot;
  /** A file's bytes in a snapshot (by its sha256), from the blob store. */
  read(sha256: string): Uint8Array;
}

/** The outcome of one check. */
export interface CheckResult {
  /** The check's kind. */
  kind: string;
  /** Whether it held. */
  passed: boolean;
  /** What it found, in words. */
  detail: string;
}

/**
 * Runs every check of a task against the sealed snapshots, in manifest order.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { runChecks } from "./checks.ts";
 * import { sealEntries } from "../workspace/snapshot.ts";
 * const before = sealEntries([{ path: "t.py", type: "file", mode: 0o644, data: new Uint8Array([1]) }]);
 * const after = sealEntries([{ path: "t.py", type: "file", mode: 0o644, data: new Uint8Array([2]) }]);
 * const [result] = runChecks([{ kind: "files_unchanged", args: ["t.py"] }], {
 *   initial: before, final: after, read: (hash) => after.contents.get(hash) ?? before.contents.get(hash)!,
 * });
 * assert(!result.passed);
 * ```
 */
export function runChecks(checks: readonly CheckSpec[], input: CheckInput): CheckResult[] {
  const changes = diffSnapshots(input.initial, input.final);
  return checks.map((check) => ({ kind: check.kind, ...runCheck(check, input, changes) }));
}

type Outcome = { passed: boolean; detail: string };

function runCheck(check: CheckSpec, input: CheckInput, changes: SnapshotChange[]): Outcome {
  switch (check.kind) {
    case "files_unchanged": {
      const touched = changes.filter((change) => check.args.includes(change.path));
      const vanished = check.args.filter((path) =>
        !input.initial.entries.some((entry) => entry.path === path)
      );
      if (vanished.length > 0) {
        return fail(`not in the initial workspace, so cannot be pinned: ${vanished.join(", ")}`);
      }
      return touched.length === 0
        ? pass(`${check.args.length} pinned file(s) unchanged`)
        : fail(touched.map(describeChange).join("; "));
    }
    case "changed_paths_within": {
      const allowed = (path: string) => check.args.some((glob) => globMatch(glob, path));
      const outside = changes.filter((change) =>
        !allowed(change.path) && !holdsAllowedChange(change, changes, allowed, input)
      );
      return outside.length === 0
        ? pass(`${changes.length} change(s), all within ${check.args.join(", ")}`)
        : fail(`outside ${check.args.join(", ")}: ${outside.map(describeChange).join("; ")}`);
    }
    case "no_new_skips":
      return noNewSkips(check.args.paths, input, changes);
    case "paths_exist": {
      const missing = check.args.filter((path) => find(input.final, path) === undefined);
      return missing.length === 0
        ? pass(`${check.args.length} path(s) exist`)
        : fail(`missing: ${missing.join(", ")}`);
    }
    case "paths_absent": {
      const present = check.args.filter((path) => find(input.final, path) !== undefined);
      return present.length === 0
        ? pass(`${check.args.length} path(s) absent`)
        : fail(`present: ${present.join(", ")}`);
    }
    case "file_contains":
    case "file_not_contains": {
      const wanted = check.kind === "file_contains";
      const text = readText(input, check.args.path);
      if (text === undefined) return fail(`${check.args.path} is not a file in the end state`);
      const what = check.args.text !== undefined
        ? JSON.stringify(check.args.text)
        : `/${check.args.pattern}/`;
      const found = check.args.text !== undefined
        ? text.includes(check.args.text)
        : new RegExp(check.args.pattern!, "m").test(text);
      return found === wanted
        ? pass(`${check.args.path} ${found ? "contains" : "does not contain"} ${what}`)
        : fail(`${check.args.path} ${found ? "contains" : "does not contain"} ${what}`);
    }
    case "max_changed_files":
      return changes.length <= check.args
        ? pass(`${changes.length} change(s), at most ${check.args} allowed`)
        : fail(`${changes.length} paths changed, at most ${check.args} allowed`);
  }
}

// A folder added or removed to hold allowed changes is itself a change; it does not break the
// path limit. An empty folder, or one holding only disallowed changes, does.
function holdsAllowedChange(
  change: SnapshotChange,
  changes: readonly SnapshotChange[],
  allowed: (path: string) => boolean,
  input: CheckInput,
): boolean {
  const entry = find(input.final, change.path) ?? find(input.initial, change.path);
  if (entry?.type !== "dir" || change.change === "modified") return false;
  const prefix = `${change.path}/`;
  return changes.some((other) => other.path.startsWith(prefix) && allowed(other.path));
}

const SKIP_MARKERS: readonly RegExp[] = [
  /@pytest\.mark\.(skip|skipif|xfail)\b/g,
  /\bpytest\.(skip|xfail|importorskip)\s*\(/g,
  /@(unittest\.)?skip(If|Unless)?\s*\(/g,
  /\.skipTest\s*\(/g,
  /\braise\s+(unittest\.)?SkipTest\b/g,
  /\bcollect_ignore(_glob)?\s*=/g,
  /\b(it|test|describe)\.(skip|todo)\s*\(/g,
  /\bx(it|describe|test)\s*\(/g,
  /\bt\.Skip(Now|f)?\s*\(/g,
  /#\[ignore\]/g,
];
const DEFAULT_SKIP_SCOPE = ["**"];

function noNewSkips(
  scope: string[] | undefined,
  input: CheckInput,
  changes: SnapshotChange[],
): Outcome {
  const globs = scope ?? DEFAULT_SKIP_SCOPE;
  const added: string[] = [];
  for (const change of changes) {
    if (change.change === "removed" || !globs.some((glob) => globMatch(glob, change.path))) {
      continue;
    }
    const after = readText(input, change.path);
    if (after === undefined) continue;
    const before = change.change === "added" ? "" : readText(input, change.path, "initial") ?? "";
    const gained = countSkips(after) - countSkips(before);
    if (gained > 0) added.push(`${change.path} (+${gained})`);
  }
  return added.length === 0
    ? pass("no new skip or xfail markers")
    : fail(`new skip or xfail markers in ${added.join(", ")}`);
}

function countSkips(text: string): number {
  return SKIP_MARKERS.reduce((sum, marker) => sum + (text.match(marker)?.length ?? 0), 0);
}

function find(snapshot: Snapshot, path: string) {
  const normalized = path.replace(/\/+$/, "");
  return snapshot.entries.find((entry) => entry.path === normalized);
}

function readText(
  input: CheckInput,
  path: string,
  which: "initial" | "final" = "final",
): string | undefined {
  const entry = find(which === "final" ? input.final : input.initial, path);
  return entry?.type === "file" ? new TextDecoder().decode(input.read(entry.sha256)) : undefined;
}

function describeChange(change: SnapshotChange): string {
  return change.change === "modified"
    ? `${change.path} modified (${change.aspects!.join(", ")})`
    : `${change.path} ${change.change}`;
}

const pass = (detail: string): Outcome => ({ passed: true, detail });
const fail = (detail: string): Outcome => ({ passed: false, detail });
