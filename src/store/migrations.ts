/**
 * Numbered schema migrations. Each runs once, in order, inside a transaction, and is recorded in
 * `schema_migrations`; a database from a newer Verdict is refused rather than misread.
 *
 * @module
 */
import type { DatabaseSync } from "node:sqlite";
import { CorruptionError, InputError } from "../core/errors.ts";
import { transaction } from "./transaction.ts";

/** One schema change. */
export interface Migration {
  /** Position in the sequence, from 1, without gaps. */
  version: number;
  /** A short name for the change. */
  name: string;
  /** The SQL to run. */
  sql: string;
  /**
   * Whether it rebuilds a table others reference: foreign keys are then off while it runs (a
   * rebuilt table is dropped and renamed, which would break them midway) and checked before it
   * commits.
   */
  rebuildsTable?: boolean;
}

/** Every migration this version of Verdict knows, in order. */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "runs, sessions, hash-chained events and content-addressed blobs",
    sql: `
      CREATE TABLE runs (
        id TEXT PRIMARY KEY,
        config TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        status TEXT NOT NULL DEFAULT 'running'
      );
      CREATE TABLE sessions (
        id TEXT PRIMARY KEY,
        run_id TEXT NOT NULL REFERENCES runs(id),
        task TEXT NOT NULL,
        repeat INTEGER NOT NULL,
        head_seq INTEGER NOT NULL DEFAULT -1,
        head_hash TEXT NOT NULL,
        status TEXT NOT NULL DEFAULT 'pending',
        result TEXT,
        UNIQUE (run_id, task, repeat)
      );
      CREATE INDEX sessions_by_run ON sessions(run_id);
      CREATE TABLE events (
        session_id TEXT NOT NULL REFERENCES sessions(id),
        seq INTEGER NOT NULL,
        kind TEXT NOT NULL,
        payload TEXT NOT NULL,
        refs TEXT NOT NULL,
        prev_hash TEXT NOT NULL,
        hash TEXT NOT NULL,
        PRIMARY KEY (session_id, seq)
      ) WITHOUT ROWID;
      CREATE TABLE blobs (
        hash TEXT PRIMARY KEY,
        size INTEGER NOT NULL,
        data BLOB NOT NULL
      ) WITHOUT ROWID;
    `,
  },
  {
    version: 2,
    name: "when each event was appended (metadata outside the hash chain)",
    sql: "ALTER TABLE events ADD COLUMN at INTEGER",
  },
  {
    version: 3,
    name: "a finished trial's summary in columns, for statistics over many trials",
    sql: `
      ALTER TABLE sessions ADD COLUMN verdict TEXT;
      ALTER TABLE sessions ADD COLUMN bucket TEXT;
      ALTER TABLE sessions ADD COLUMN reason TEXT;
      ALTER TABLE sessions ADD COLUMN steps INTEGER;
      ALTER TABLE sessions ADD COLUMN tokens_input INTEGER;
      ALTER TABLE sessions ADD COLUMN tokens_output INTEGER;
      ALTER TABLE sessions ADD COLUMN cost_usd REAL;
      ALTER TABLE sessions ADD COLUMN duration_ms INTEGER;
    `,
  },
  {
    version: 4,
    // In a WITHOUT ROWID table a row lives in the key's b-tree: a lookup that meets a large row
    // (a snapshot manifest of 100,000 entries is 13 MB) reads all of it to compare keys, 17 ms a
    // lookup. In a rowid table the key index holds only hash and rowid.
    name: "blobs in a rowid table, so that a large blob does not slow every lookup",
    sql: `
      CREATE TABLE blobs_by_rowid (
        hash TEXT PRIMARY KEY NOT NULL,
        size INTEGER NOT NULL,
        data BLOB NOT NULL
      );
      INSERT INTO blobs_by_rowid (hash, size, data) SELECT hash, size, data FROM blobs;
      DROP TABLE blobs;
      ALTER TABLE blobs_by_rowid RENAME TO blobs;
    `,
  },
  {
    version: 5,
    name: "a Harbor trial's reward, in a column for statistics",
    sql: "ALTER TABLE sessions ADD COLUMN reward REAL",
  },
  {
    version: 6,
    // A table's UNIQUE constraint cannot be altered in SQLite: the table is rebuilt. The
    // constraint's own index serves lookups by run, so `sessions_by_run` is not made again.
    name: "a trial may be retried: each attempt a session of its own, numbered by `retry`",
    rebuildsTable: true,
    sql: `
      CREATE TABLE sessions_by_attempt (
        id TEXT PRIMARY KEY,
        run_id TEXT NOT NULL REFERENCES runs(id),
        task TEXT NOT NULL,
        repeat INTEGER NOT NULL,
        retry INTEGER NOT NULL DEFAULT 0,
        head_seq INTEGER NOT NULL DEFAULT -1,
        head_hash TEXT NOT NULL,
        status TEXT NOT NULL DEFAULT 'pending',
        result TEXT,
        verdict TEXT,
        bucket TEXT,
        reason TEXT,
        steps INTEGER,
        tokens_input INTEGER,
        tokens_output INTEGER,
        cost_usd REAL,
        duration_ms INTEGER,
        reward REAL,
        UNIQUE (run_id, task, repeat, retry)
      );
      INSERT INTO sessions_by_attempt (id, run_id, task, repeat, head_seq, head_hash, status,
        result, verdict, bucket, reason, steps, tokens_input, tokens_output, cost_usd,
        duration_ms, reward)
      SELECT id, run_id, task, repeat, head_seq, head_hash, status, result, verdict, bucket,
        reason, steps, tokens_input, tokens_output, cost_usd, duration_ms, reward FROM sessions;
      DROP TABLE sessions;
      ALTER TABLE sessions_by_attempt RENAME TO sessions;
    `,
  },
  {
    version: 7,
    name: "a run's signature: who recorded it, over its configuration, heads and results",
    sql: `
      CREATE TABLE run_signatures (
        run_id TEXT PRIMARY KEY NOT NULL REFERENCES runs(id),
        public_key TEXT NOT NULL,
        signature TEXT NOT NULL
      );
    `,
  },
  {
    version: 8,
    name: "a merged run's shards: what each shard's signature was over, and by whom",
    sql: `
      CREATE TABLE shard_signatures (
        run_id TEXT NOT NULL REFERENCES runs(id),
        shard_index INTEGER NOT NULL,
        shard_count INTEGER NOT NULL,
        statement TEXT NOT NULL,
        public_key TEXT,
        signature TEXT,
        PRIMARY KEY (run_id, shard_index)
      );
    `,
  },
];

/** The newest schema version this Verdict knows. */
export const LATEST_SCHEMA_VERSION: number = MIGRATIONS[MIGRATIONS.length - 1].version;

/**
 * Brings a database up to {@linkcode LATEST_SCHEMA_VERSION}; returns the versions applied.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { DatabaseSync } from "node:sqlite";
 * import { migrate } from "./migrations.ts";
 * const db = new DatabaseSync(":memory:");
 * assert(migrate(db, ":memory:").length > 0);
 * assert(migrate(db, ":memory:").length === 0);
 * ```
 * @throws {InputError} when the database was written by a newer Verdict (exit 2).
 */
export function migrate(
  db: DatabaseSync,
  path: string,
  migrations: readonly Migration[] = MIGRATIONS,
): number[] {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY,
    name TEXT NOT NULL
  )`);
  const row = db.prepare("SELECT MAX(version) AS version FROM schema_migrations").get() as {
    version: number | null;
  };
  const current = row.version ?? 0;
  const latest = migrations[migrations.length - 1]?.version ?? 0;
  if (current > latest) {
    throw new InputError({
      file: path,
      field: "schema_migrations",
      problem:
        `the database is at schema version ${current}, newer than this Verdict knows (${latest})`,
      fix: "run a newer verdict, or point --home (or VERDICT_HOME) at another state directory",
    });
  }
  const applied: number[] = [];
  for (const migration of migrations) {
    if (migration.version <= current) continue;
    const keysWereOn = migration.rebuildsTable === true && foreignKeysOn(db);
    if (keysWereOn) db.exec("PRAGMA foreign_keys = OFF");
    try {
      transaction(db, () => {
        db.exec(migration.sql);
        if (migration.rebuildsTable) requireForeignKeysHold(db, path, migration);
        db.prepare("INSERT INTO schema_migrations (version, name) VALUES (?, ?)").run(
          migration.version,
          migration.name,
        );
      });
    } finally {
      if (keysWereOn) db.exec("PRAGMA foreign_keys = ON");
    }
    applied.push(migration.version);
  }
  return applied;
}

function foreignKeysOn(db: DatabaseSync): boolean {
  return (db.prepare("PRAGMA foreign_keys").get() as { foreign_keys: number }).foreign_keys === 1;
}

// SQLite's own check, as its procedure for rebuilding a table asks: a row left pointing at
// nothing rolls the migration back.
function requireForeignKeysHold(db: DatabaseSync, path: string, migration: Migration): void {
  const broken = db.prepare("PRAGMA foreign_key_check").all() as { table: string }[];
  if (broken.length === 0) return;
  throw new CorruptionError(
    `the record is damaged: ${path} has ${broken.length} row(s) of ${broken[0].table} that ` +
      `point at nothing, found while bringing it to schema version ${migration.version}; ` +
      `nothing was changed. Run 'verdict verify' to see which`,
  );
}

/**
 * Refuses a database not at {@linkcode LATEST_SCHEMA_VERSION}, for a connection that may not
 * migrate it (read-only).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { DatabaseSync } from "node:sqlite";
 * import { migrate, requireLatestSchema } from "./migrations.ts";
 * const db = new DatabaseSync(":memory:");
 * migrate(db, ":memory:");
 * requireLatestSchema(db, ":memory:");
 * assert.throws(() => requireLatestSchema(new DatabaseSync(":memory:"), "x.db"));
 * ```
 * @throws {InputError} naming the file and the versions when it is older or newer.
 */
export function requireLatestSchema(db: DatabaseSync, path: string): void {
  const hasTable = db.prepare(
    "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'",
  ).get() !== undefined;
  const row = hasTable
    ? db.prepare("SELECT MAX(version) AS version FROM schema_migrations").get() as {
      version: number | null;
    }
    : { version: null };
  const current = row.version ?? 0;
  if (current === LATEST_SCHEMA_VERSION) return;
  throw new InputError({
    file: path,
    field: "schema_migrations",
    problem: `the database is at schema version ${current}; read-only, this Verdict reads only ` +
      `version ${LATEST_SCHEMA_VERSION}`,
    fix: current < LATEST_SCHEMA_VERSION
      ? "run any verdict command that records (such as 'verdict runs') once to upgrade it"
      : "run a newer verdict",
  });
}
