/**
 * A merged run's shards as they were signed: each shard's signed statement (its configuration,
 * session heads and results digest, in the words of `run_signature.ts`), and its signer's public
 * key and signature, or none for an unsigned shard. Kept so that `verify` can check, long after the
 * shards are gone, who vouched for each part of a merged run.
 *
 * @module
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";

/** One shard of a merged run, as merged. */
export interface ShardSignature {
  /** The merged run. */
  run: string;
  /** The shard's number, 1-based. */
  index: number;
  /** How many shards the experiment was split into. */
  count: number;
  /** The statement the shard's signature is over (canonical JSON). */
  statement: string;
  /** The shard's signer's public key, base64url; undefined when the shard was unsigned. */
  publicKey?: string;
  /** The shard's signature, base64url; undefined when the shard was unsigned. */
  signature?: string;
}

/**
 * The `shard_signatures` table: a merged run's shards, one row each.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openStore } from "./store.ts";
 * const store = openStore(":memory:");
 * store.runs.create({ id: "r1", config: {}, createdAt: 0 });
 * store.shardSignatures.add({ run: "r1", index: 1, count: 1, statement: "{}" });
 * assert.equal(store.shardSignatures.list("r1")[0].publicKey, undefined);
 * store.close();
 * ```
 */
export class ShardSignatureTable {
  readonly #select: StatementSync;
  readonly #insert: StatementSync;

  /** Wraps a migrated database. */
  constructor(db: DatabaseSync) {
    this.#select = db.prepare(
      "SELECT * FROM shard_signatures WHERE run_id = ? ORDER BY shard_index",
    );
    this.#insert = db.prepare(
      "INSERT INTO shard_signatures (run_id, shard_index, shard_count, statement, public_key, " +
        "signature) VALUES (?, ?, ?, ?, ?, ?)",
    );
  }

  /** A run's shards in order; none for a run that was not merged. */
  list(run: string): ShardSignature[] {
    return (this.#select.all(run) as Record<string, string | number | null>[]).map((row) => ({
      run: String(row.run_id),
      index: Number(row.shard_index),
      count: Number(row.shard_count),
      statement: String(row.statement),
      ...(row.public_key === null ? {} : { publicKey: String(row.public_key) }),
      ...(row.signature === null ? {} : { signature: String(row.signature) }),
    }));
  }

  /** Records one shard of a merged run. */
  add(shard: ShardSignature): void {
    this.#insert.run(
      shard.run,
      shard.index,
      shard.count,
      shard.statement,
      shard.publicKey ?? null,
      shard.signature ?? null,
    );
  }
}
