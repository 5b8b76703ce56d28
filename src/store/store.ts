/**
 * The state database: `verdict.db` under the state directory, opened in WAL mode with foreign keys
 * on and migrated to the latest schema.
 *
 * @module
 */
import { DatabaseSync } from "node:sqlite";
import { RunSignatureTable } from "./run_signatures.ts";
import { ShardSignatureTable } from "./shard_signatures.ts";
import { BlobStore } from "./blob_store.ts";
import { checkDatabaseFile, checkStoreTables, guardDatabase } from "./damaged_store.ts";
import { EventLog } from "./event_log.ts";
import { migrate, requireLatestSchema } from "./migrations.ts";
import { RunTable } from "./run_table.ts";
import { transaction } from "./transaction.ts";

/** An open state database. */
export interface Store {
  /** Where it lives (`:memory:` for an in-memory store). */
  readonly path: string;
  /** The underlying connection. */
  readonly db: DatabaseSync;
  /** Content-addressed blobs. */
  readonly blobs: BlobStore;
  /** Hash-chained session logs. */
  readonly events: EventLog;
  /** Runs and sessions. */
  readonly runs: RunTable;
  /** Runs' signatures. */
  readonly signatures: RunSignatureTable;
  /** What a merged run's shards were signed over, and by whom. */
  readonly shardSignatures: ShardSignatureTable;
  /** Runs `work` in one transaction. */
  transaction<T>(work: () => T): T;
  /** Closes the connection. */
  close(): void;
}

/**
 * Opens (creating if needed) and migrates a state database.
 *
 * Durability: WAL with `synchronous=NORMAL`. A committed transaction survives the process being
 * killed at any point; only a power loss or OS crash can lose the last commits (DECISIONS.md).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openStore } from "./store.ts";
 * const store = openStore(":memory:");
 * assert(store.runs.list().length === 0);
 * store.close();
 * ```
 * With `readOnly`, nothing is ever written (not even a migration): the database must already be
 * at the latest schema, and every write throws.
 *
 * A damaged file is reported as a `DamagedStoreError` (exit 1) when it is opened and by every query
 * that meets the damage later.
 *
 * @throws {InputError} when the database is from a newer Verdict (exit 2).
 * @throws {DamagedStoreError} when the file is damaged, a folder, or missing or empty beside the run
 * folders it should record (exit 1).
 */
export function openStore(path: string, options: { readOnly?: boolean } = {}): Store {
  if (path !== ":memory:") checkDatabaseFile(path);
  const readOnly = options.readOnly === true;
  const db = guardDatabase(new DatabaseSync(path, { readOnly }), path);
  try {
    db.exec("PRAGMA busy_timeout = 10000");
    if (!readOnly) {
      db.exec("PRAGMA journal_mode = WAL");
      db.exec("PRAGMA synchronous = NORMAL");
      db.exec("PRAGMA wal_autocheckpoint = 8192");
    }
    db.exec("PRAGMA foreign_keys = ON");
    checkStoreTables(db, path);
    if (readOnly) requireLatestSchema(db, path);
    else migrate(db, path);
    checkStoreTables(db, path);
  } catch (error) {
    db.close();
    throw error;
  }
  const blobs = new BlobStore(db);
  return {
    path,
    db,
    blobs,
    events: new EventLog(db, blobs),
    runs: new RunTable(db),
    signatures: new RunSignatureTable(db),
    shardSignatures: new ShardSignatureTable(db),
    transaction: (work) => transaction(db, work),
    close: () => db.close(),
  };
}
