/**
 * A damaged state database is reported as such, never as an internal error (SPEC section 6): the
 * file checks made before SQLite opens it, and a guard that turns SQLite's "malformed" and "not a
 * database" errors, whenever a query meets them, into a {@linkcode DamagedStoreError} (exit 1).
 *
 * @module
 */
import { dirname, join } from "node:path";
import type { DatabaseSync } from "node:sqlite";
import { CorruptionError } from "../core/errors.ts";

/**
 * The state database cannot be read as one: damaged pages, a garbage header, a folder in its
 * place, or an empty file next to the run folders it should describe (exit 1: the answer to "is
 * the record intact?" is no).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { DamagedStoreError } from "./damaged_store.ts";
 * const error = new DamagedStoreError(".verdict/verdict.db", "file is not a database");
 * assert(error.exitCode === 1 && error.message.includes("verdict verify"));
 * ```
 */
export class DamagedStoreError extends CorruptionError {
  /** The database file. */
  readonly path: string;
  /** What is wrong with it, in words. */
  readonly detail: string;
  /** What to do about it (besides running `verify`, which the message also says by default). */
  readonly fix: string;

  /**
   * Makes the error for a database file, what is wrong with it and, when the usual advice (run
   * `verify`, restore a backup or start a new state directory) does not fit, what to do.
   */
  constructor(path: string, detail: string, options?: ErrorOptions & { fix?: string }) {
    const fix = options?.fix ??
      `restore ${path} from a backup, or move the state directory aside and start a new one`;
    const verify = options?.fix === undefined ? "run 'verdict verify RUN' to see the damage; " : "";
    super(`the state database ${path} is damaged: ${detail}. Fix: ${verify}${fix}`, options);
    this.path = path;
    this.detail = detail;
    this.fix = fix;
  }
}

// SQLITE_CORRUPT and SQLITE_NOTADB (primary codes; extended codes keep them in the low byte).
const DAMAGE_CODES = new Set([11, 26]);
const DAMAGE_MESSAGES = /database disk image is malformed|file is not a database/;

/**
 * Whether an error thrown by `node:sqlite` says the database file is damaged.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isDamageError } from "./damaged_store.ts";
 * assert(isDamageError(Object.assign(new Error("file is not a database"), { code: "ERR_SQLITE_ERROR" })));
 * assert(!isDamageError(new Error("database is locked")));
 * ```
 */
export function isDamageError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const { code, errcode } = error as { code?: unknown; errcode?: unknown };
  if (code !== "ERR_SQLITE_ERROR") return false;
  if (typeof errcode === "number" && DAMAGE_CODES.has(errcode & 0xff)) return true;
  return DAMAGE_MESSAGES.test(error.message);
}

/**
 * Refuses a database path that cannot be the state database before SQLite opens (and would
 * create or misread) it: a folder, or a missing or empty file while the `runs/` folder beside it
 * holds run folders (an empty store there would hand out the earlier runs' ids again and
 * overwrite their `results.json`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { checkDatabaseFile } from "./damaged_store.ts";
 * const dir = Deno.makeTempDirSync();
 * Deno.mkdirSync(`${dir}/runs/abc123`, { recursive: true });
 * Deno.writeFileSync(`${dir}/verdict.db`, new Uint8Array());
 * let refused = false;
 * try { checkDatabaseFile(`${dir}/verdict.db`); } catch { refused = true; }
 * Deno.removeSync(dir, { recursive: true });
 * assert(refused);
 * ```
 * @throws {DamagedStoreError} naming the file and the fix.
 */
export function checkDatabaseFile(path: string): void {
  let size = 0;
  try {
    const info = Deno.statSync(path);
    if (info.isDirectory) throw new DamagedStoreError(path, "it is a folder, not a database file");
    size = info.size;
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
    size = -1;
  }
  if (size > 0) return;
  const runsDir = join(dirname(path), "runs");
  const runs = runFolders(runsDir);
  if (runs.length === 0) return;
  const shown = runs.slice(0, 3).join(", ") + (runs.length > 3 ? ", …" : "");
  throw new DamagedStoreError(
    path,
    `it is ${size < 0 ? "missing" : "empty (0 bytes)"}, yet ${runsDir} holds ${runs.length} ` +
      `run folder${runs.length === 1 ? "" : "s"} (${shown}) whose record it held; an empty store ` +
      `here would hand out their run ids again and overwrite their results.json`,
    {
      fix: `restore ${path} from a backup, or move ${runsDir} aside to start an empty record ` +
        `(nothing is written until then)`,
    },
  );
}

function runFolders(runsDir: string): string[] {
  try {
    return [...Deno.readDirSync(runsDir)].filter((entry) => entry.isDirectory)
      .map((entry) => entry.name).sort();
  } catch (error) {
    if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory) {
      return [];
    }
    throw error;
  }
}

/**
 * Wraps a connection so that every call on it, and on the statements it prepares, throws a
 * {@linkcode DamagedStoreError} naming `path` where SQLite reports a damaged file. Damaged pages
 * surface only when a query reads them, so no single check at open time could catch them all.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { DatabaseSync } from "node:sqlite";
 * import { guardDatabase } from "./damaged_store.ts";
 * const db = guardDatabase(new DatabaseSync(":memory:"), ":memory:");
 * assert(db.prepare("SELECT 1 AS one").get()?.one === 1);
 * ```
 */
export function guardDatabase(db: DatabaseSync, path: string): DatabaseSync {
  const translate = (error: unknown) =>
    isDamageError(error)
      ? new DamagedStoreError(path, (error as Error).message, { cause: error })
      : error;
  return guarded(
    db,
    translate,
    (name, value) =>
      name === "prepare" ? guarded(value as object, translate, (_, result) => result) : value,
  );
}

function guarded<T extends object>(
  target: T,
  translate: (error: unknown) => unknown,
  wrapResult: (name: PropertyKey, value: unknown) => unknown,
): T {
  const methods = new Map<PropertyKey, unknown>();
  return new Proxy(target, {
    get(object, name) {
      const value = Reflect.get(object, name);
      if (typeof value !== "function") return value;
      let method = methods.get(name);
      if (method === undefined) {
        method = (...args: unknown[]) => {
          try {
            return wrapResult(name, Reflect.apply(value, object, args));
          } catch (error) {
            throw translate(error);
          }
        };
        methods.set(name, method);
      }
      return method;
    },
  });
}

/** The tables a state database holds; each must be a table (a view in its place is not ours). */
const STORE_TABLES = [
  "schema_migrations",
  "runs",
  "sessions",
  "events",
  "blobs",
  "run_signatures",
  "shard_signatures",
];

/**
 * Refuses a database whose record tables are not tables: a view or a trigger-fed stand-in in
 * place of one would be read as the record, or fail a write as an internal error.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { DatabaseSync } from "node:sqlite";
 * import { checkStoreTables } from "./damaged_store.ts";
 * const db = new DatabaseSync(":memory:");
 * db.exec("CREATE TABLE runs (id TEXT); CREATE VIEW events AS SELECT 1");
 * assert.throws(() => checkStoreTables(db, ":memory:"), /events is a view, not a table/);
 * ```
 * @throws {DamagedStoreError} naming the file and the object.
 */
export function checkStoreTables(db: DatabaseSync, path: string): void {
  const found = new Map(
    (db.prepare(
      `SELECT name, type FROM sqlite_master WHERE name IN (${
        STORE_TABLES.map(() => "?").join(", ")
      })`,
    )
      .all(...STORE_TABLES) as { name: string; type: string }[])
      .map(({ name, type }) => [name, type]),
  );
  for (const name of STORE_TABLES) {
    const type = found.get(name);
    if (type !== undefined && type !== "table") {
      throw new DamagedStoreError(
        path,
        `${name} is a ${type}, not a table: this is not a record Verdict wrote`,
      );
    }
  }
}
