/**
 * A content-addressed blob table: a blob's key is the sha256 of its bytes, so storing the same
 * bytes twice costs nothing, and every read re-hashes and refuses a blob that does not match.
 *
 * @module
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";
import { CorruptionError } from "../core/errors.ts";
import { type Sha256Hex, sha256Hex } from "../core/hash.ts";

/**
 * Blobs in one SQLite database.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { DatabaseSync } from "node:sqlite";
 * import { migrate } from "./migrations.ts";
 * import { BlobStore } from "./blob_store.ts";
 * const db = new DatabaseSync(":memory:");
 * migrate(db, ":memory:");
 * const blobs = new BlobStore(db);
 * const hash = blobs.put(new TextEncoder().encode("hello"));
 * assert(new TextDecoder().decode(blobs.get(hash)) === "hello");
 * ```
 */
export class BlobStore {
  readonly #insert: StatementSync;
  readonly #select: StatementSync;
  readonly #exists: StatementSync;

  /** Wraps a migrated database. */
  constructor(db: DatabaseSync) {
    this.#insert = db.prepare("INSERT OR IGNORE INTO blobs (hash, size, data) VALUES (?, ?, ?)");
    this.#select = db.prepare("SELECT data FROM blobs WHERE hash = ?");
    this.#exists = db.prepare("SELECT 1 AS found FROM blobs WHERE hash = ?");
  }

  /** Stores bytes (once) and returns their sha256. */
  put(data: Uint8Array): Sha256Hex {
    const hash = sha256Hex(data);
    this.#insert.run(hash, data.length, data);
    return hash;
  }

  /** Stores a string as UTF-8 and returns its sha256. */
  putText(text: string): Sha256Hex {
    return this.put(new TextEncoder().encode(text));
  }

  /**
   * Reads a blob and checks it against its hash.
   * @throws {CorruptionError} when the blob is missing or its bytes do not hash to its key.
   */
  get(hash: Sha256Hex): Uint8Array {
    const row = this.#select.get(hash) as { data: Uint8Array } | undefined;
    if (row === undefined) throw new CorruptionError(`blob ${hash} is missing from the store`);
    const actual = sha256Hex(row.data);
    if (actual !== hash) {
      throw new CorruptionError(`blob ${hash} does not match its content (it hashes to ${actual})`);
    }
    return row.data;
  }

  /** Reads a blob as UTF-8 text, checked like {@linkcode BlobStore.get}. */
  getText(hash: Sha256Hex): string {
    return new TextDecoder().decode(this.get(hash));
  }

  /** Whether a blob with this hash is stored (without reading or checking it). */
  has(hash: Sha256Hex): boolean {
    return this.#exists.get(hash) !== undefined;
  }
}
