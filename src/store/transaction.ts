/**
 * One helper for SQLite transactions, so every multi-row write commits or rolls back as a whole.
 *
 * @module
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";

// Prepared once per database: parsing `BEGIN` and `COMMIT` again on every step showed up as a
// tenth of the store's append time.
const prepared = new WeakMap<DatabaseSync, { begin: StatementSync; commit: StatementSync }>();

/**
 * Runs `work` inside `BEGIN IMMEDIATE … COMMIT`, rolling back if it throws. `work` is synchronous on
 * purpose: nothing else can interleave with a transaction in this process.
 *
 * @example
 * ```ts
 * import { DatabaseSync } from "node:sqlite";
 * import { transaction } from "./transaction.ts";
 * const db = new DatabaseSync(":memory:");
 * db.exec("CREATE TABLE t (x INTEGER)");
 * transaction(db, () => db.prepare("INSERT INTO t VALUES (1)").run());
 * ```
 */
export function transaction<T>(db: DatabaseSync, work: () => T): T {
  if (db.isTransaction) return work();
  let statements = prepared.get(db);
  if (statements === undefined) {
    statements = { begin: db.prepare("BEGIN IMMEDIATE"), commit: db.prepare("COMMIT") };
    prepared.set(db, statements);
  }
  statements.begin.run();
  try {
    const result = work();
    statements.commit.run();
    return result;
  } catch (error) {
    if (db.isTransaction) db.exec("ROLLBACK");
    throw error;
  }
}
