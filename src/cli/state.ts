/**
 * The state directory (`--home`, `$VERDICT_HOME`, or `.verdict/`) and its database.
 *
 * @module
 */
import { newestFirst } from "../report/run_listing.ts";
import { runLabel } from "../report/run_label.ts";
import { join } from "node:path";
import { UsageError } from "../core/errors.ts";
import { nearest } from "../core/suggest.ts";
import { checkDatabaseFile } from "../store/damaged_store.ts";
import { openStore, type Store } from "../store/store.ts";
import type { RunRecord, SessionRecord } from "../store/run_table.ts";
import type { OptionValues } from "./command.ts";
import type { Io } from "./io.ts";

/** The default state directory, relative to the current directory. */
export const DEFAULT_HOME = ".verdict";

/**
 * The state directory: `--home`, else `$VERDICT_HOME`, else `.verdict/`. It need not exist yet.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { resolveHome } from "./state.ts";
 * import { memoryIo } from "./io.ts";
 * assert(resolveHome({}, memoryIo({ VERDICT_HOME: "/v" })) === "/v");
 * assert(resolveHome({ home: "h" }, memoryIo({ VERDICT_HOME: "/v" })) === "h");
 * ```
 * @throws {UsageError} when the path names a file, or lies under one (exit 2).
 */
export function resolveHome(values: OptionValues, io: Io): string {
  const flag = values.home;
  if (typeof flag === "string" && flag !== "") return requireFolder(flag, "--home");
  const env = io.env("VERDICT_HOME");
  if (env) return requireFolder(env, "VERDICT_HOME");
  return requireFolder(DEFAULT_HOME, "the default state directory");
}

function requireFolder(home: string, source: string): string {
  let isFile: boolean;
  try {
    isFile = !Deno.statSync(home).isDirectory;
  } catch (error) {
    // Missing is fine (the folder is made when needed); a refused read is reported by the path
    // access check, which names the permission.
    if (!(error instanceof Deno.errors.NotADirectory)) return home;
    isFile = true;
  }
  if (!isFile) return home;
  throw new UsageError(
    `${source} ${home} is not a folder (it names a file, or lies under one): the state ` +
      `directory must be a folder; point --home (or VERDICT_HOME) at a folder, which is created ` +
      `if missing, or move the file away`,
  );
}

/** The database file under a state directory. */
export function databasePath(home: string): string {
  return join(home, "verdict.db");
}

/**
 * Opens the database of a state directory that must already exist (for commands that read runs).
 *
 * @throws {UsageError} naming the directory when there is no database there.
 * @throws {DamagedStoreError} when the database is damaged, or missing beside run folders (exit 1).
 */
export function openExistingStore(home: string): Store {
  const path = databasePath(home);
  checkDatabaseFile(path);
  try {
    Deno.statSync(path);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
    throw new UsageError(
      `no state database at ${path}: run 'verdict eval' first, or point --home (or VERDICT_HOME) ` +
        `at the state directory that holds your runs`,
    );
  }
  return openStore(path);
}

/** The word that names the newest run wherever a run id is asked for. */
export const LATEST = "latest";

/**
 * A run by id, unique id prefix, or `latest` (the newest).
 *
 * @throws {UsageError} naming the nearest run id when there is no such run.
 */
export function findRun(store: Store, id: string): RunRecord {
  const exact = store.runs.get(id);
  if (exact !== undefined) return exact;
  const runs = store.runs.list();
  if (id === LATEST) {
    if (runs.length > 0) return newestFirst(runs)[0];
    throw new UsageError(`no run in ${store.path} yet, so none is the latest: run 'verdict eval'`);
  }
  const prefixed = runs.filter((run) => run.id.startsWith(id));
  if (prefixed.length === 1) return prefixed[0];
  if (prefixed.length > 1) {
    throw new UsageError(
      `run prefix '${id}' is ambiguous: ${prefixed.map((run) => run.id).join(", ")}`,
    );
  }
  const guess = nearest(id, runs.map((run) => run.id));
  const hint = guess
    ? `; did you mean ${guess}?`
    : runs.length === 0
    ? "; the state directory has no runs yet"
    : `; the newest: ${
      newestFirst(runs).slice(0, 5).map((run) => `${run.id} (${runLabel(run.config)})`).join(", ")
    }${runs.length > 5 ? `; 'verdict runs' lists all ${runs.length}` : ""}`;
  throw new UsageError(`no run '${id}' in ${store.path}${hint}`);
}

/**
 * A session by id or unique prefix, across runs.
 *
 * @throws {UsageError} naming the nearest id when none matches, or the matches when several do.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openStore } from "../store/store.ts";
 * import { findSession } from "./state.ts";
 * const store = openStore(":memory:");
 * store.runs.create({ id: "r1", config: {}, createdAt: 0 });
 * store.runs.createSession({ id: "s-abc", run: "r1", task: "t", repeat: 0 });
 * assert(findSession(store, "s-a").id === "s-abc");
 * ```
 */
export function findSession(store: Store, id: string): SessionRecord {
  const exact = store.runs.session(id);
  if (exact !== undefined) return exact;
  const prefixed = store.runs.sessionIdsStartingWith(id);
  if (prefixed.length === 1) return store.runs.session(prefixed[0])!;
  if (prefixed.length > 1) {
    throw new UsageError(`session prefix '${id}' is ambiguous: ${prefixed.join(", ")}`);
  }
  const guess = nearest(id, store.runs.sessionIdsStartingWith(""));
  throw new UsageError(
    `no session '${id}' in ${store.path}${guess ? `; did you mean ${guess}?` : ""}`,
  );
}
