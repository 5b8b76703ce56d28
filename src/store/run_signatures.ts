/**
 * Runs' signatures: who recorded a run (an Ed25519 public key) and their signature over it. What
 * is signed is the eval layer's to say (`run_signature.ts`); this table only keeps them.
 *
 * @module
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";

/** A run's signature as stored. */
export interface RunSignature {
  /** The run. */
  run: string;
  /** The signer's public key, base64url of its raw bytes. */
  publicKey: string;
  /** The signature, base64url. */
  signature: string;
}

/**
 * The `run_signatures` table: at most one signature per run, the latest (a resumed run is signed
 * again).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openStore } from "./store.ts";
 * const store = openStore(":memory:");
 * store.runs.create({ id: "r1", config: {}, createdAt: 0 });
 * store.signatures.put({ run: "r1", publicKey: "k", signature: "s" });
 * assert.equal(store.signatures.get("r1")?.signature, "s");
 * store.close();
 * ```
 */
export class RunSignatureTable {
  readonly #select: StatementSync;
  readonly #upsert: StatementSync;
  readonly #delete: StatementSync;

  /** Wraps a migrated database. */
  constructor(db: DatabaseSync) {
    this.#select = db.prepare("SELECT * FROM run_signatures WHERE run_id = ?");
    this.#upsert = db.prepare(
      "INSERT OR REPLACE INTO run_signatures (run_id, public_key, signature) VALUES (?, ?, ?)",
    );
    this.#delete = db.prepare("DELETE FROM run_signatures WHERE run_id = ?");
  }

  /** A run's signature, or undefined when it is unsigned. */
  get(run: string): RunSignature | undefined {
    const row = this.#select.get(run) as Record<string, string> | undefined;
    return row === undefined
      ? undefined
      : { run: row.run_id, publicKey: row.public_key, signature: row.signature };
  }

  /** Records a run's signature, replacing an earlier one. */
  put(signature: RunSignature): void {
    this.#upsert.run(signature.run, signature.publicKey, signature.signature);
  }

  /** Forgets a run's signature: it no longer vouches for the run as it now stands. */
  remove(run: string): void {
    this.#delete.run(run);
  }
}
