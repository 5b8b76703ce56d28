/**
 * One helper for SQLite transactions, so every multi-row write commits or rolls back as a whole.
 *
 * @module
 */
import type { DatabaseSync } from "node:sqlite";

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
  db.exec("BEGIN IMMEDIATE");
  try {
    const result = work();
    db.exec("COMMIT");
    return result;
  } catch (error) {
    if (db.isTransaction) db.exec("ROLLBACK");
    throw error;
  }
}
