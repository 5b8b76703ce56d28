/**
 * The state database file's own integrity, below the hash chains: SQLite's `PRAGMA quick_check`
 * reads every page and reports those it cannot make sense of.
 *
 * @module
 */
import { DamagedStoreError } from "./damaged_store.ts";
import type { Store } from "./store.ts";

/** How many of SQLite's findings are kept; the first few locate the damage well enough. */
const MAX_FINDINGS = 20;

/**
 * What SQLite finds wrong with the database file's pages and b-trees, one line per finding;
 * empty when the file is sound.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openStore } from "./store.ts";
 * import { pageProblems } from "./integrity.ts";
 * const store = openStore(":memory:");
 * assert(pageProblems(store).length === 0);
 * store.close();
 * ```
 */
export function pageProblems(store: Store): string[] {
  try {
    const rows = store.db.prepare(`PRAGMA quick_check(${MAX_FINDINGS})`).all() as {
      quick_check: string;
    }[];
    // A finding may span lines, and the first names the schema ("*** in database main ***").
    const findings = rows.flatMap((row) => row.quick_check.split("\n"))
      .filter((line) => line !== "ok" && !/^\*\*\* in database \w+ \*\*\*$/.test(line));
    return findings;
  } catch (error) {
    // SQLite gives up on a page it cannot even walk; that is itself the finding.
    if (error instanceof DamagedStoreError) return [error.detail];
    throw error;
  }
}
