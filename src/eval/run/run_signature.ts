/**
 * What a run's signature covers, and signing and checking it: the run's id, configuration, start
 * and status; every session's id, attempt, head (sequence number and hash) and end-state root; and
 * the sha256 of its `results.json` as the record rebuilds it; and for a merged run, each shard's
 * signed statement and signature. The hash chains make each session's head stand for its whole
 * log, so the signature stands for the whole record; without the key, a record cannot be changed
 * and signed again. A merged run keeps its shards' statements, so `verify` checks who vouched for
 * each shard as well as who merged them.
 *
 * @module
 */
import { canonicalJson } from "../../core/canonical_json.ts";
import { keyFingerprint, signBytes, type SigningKey, verifyBytes } from "../../core/ed25519.ts";
import { sha256Hex } from "../../core/hash.ts";
import { buildResults } from "../../report/results.ts";
import type { RunRecord } from "../../store/run_table.ts";
import type { Store } from "../../store/store.ts";

/** How a run's signature checks out. */
export type SignatureCheck =
  | { state: "unsigned" }
  | { state: "signed"; publicKey: string; signer: string }
  | { state: "forged"; publicKey: string; signer: string };

/**
 * The bytes a run's signature is over.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openStore } from "../../store/store.ts";
 * import { runStatement } from "./run_signature.ts";
 * const store = openStore(":memory:");
 * store.runs.create({ id: "r1", config: { seed: 1 }, createdAt: 0 });
 * const text = new TextDecoder().decode(runStatement(store, store.runs.get("r1")!));
 * assert.match(text, /"schema":"verdict.run-signature\/1"/);
 * ```
 */
export function runStatement(store: Store, run: RunRecord): Uint8Array<ArrayBuffer> {
  const sessions = store.runs.attempts(run.id).map((session) => ({
    id: session.id,
    retry: session.retry,
    head_seq: session.headSeq,
    head_hash: session.headHash,
    end_state_root: session.result?.end_state_root ?? null,
  }));
  const shards = store.shardSignatures.list(run.id).map((shard) => ({
    index: shard.index,
    count: shard.count,
    statement_sha256: sha256Hex(shard.statement),
    public_key: shard.publicKey ?? null,
    signature: shard.signature ?? null,
  }));
  return new TextEncoder().encode(canonicalJson({
    schema: STATEMENT_SCHEMA,
    run: run.id,
    config: run.config,
    created_at: run.createdAt,
    status: run.status,
    sessions,
    results_sha256: sha256Hex(canonicalJson(buildResults(store, run))),
    // Absent for a run that was not merged, so its statement is what it always was.
    ...(shards.length > 0 ? { shards } : {}),
  }));
}

const STATEMENT_SCHEMA = "verdict.run-signature/1";

/**
 * Signs a run as it stands in `store`, replacing an earlier signature.
 *
 * @example
 * ```ts ignore
 * await signRun(store, store.runs.get(id)!, key);
 * ```
 */
export async function signRun(store: Store, run: RunRecord, key: SigningKey): Promise<void> {
  const signature = await signBytes(key, runStatement(store, run));
  store.signatures.put({ run: run.id, publicKey: key.publicKey, signature });
}

/**
 * Checks a run's signature against the record as it stands.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openStore } from "../../store/store.ts";
 * import { checkRunSignature } from "./run_signature.ts";
 * const store = openStore(":memory:");
 * store.runs.create({ id: "r1", config: {}, createdAt: 0 });
 * assert.equal((await checkRunSignature(store, store.runs.get("r1")!)).state, "unsigned");
 * ```
 */
export async function checkRunSignature(store: Store, run: RunRecord): Promise<SignatureCheck> {
  const stored = store.signatures.get(run.id);
  if (stored === undefined) return { state: "unsigned" };
  const holds = await verifyBytes(stored.publicKey, stored.signature, runStatement(store, run));
  const signer = keyFingerprint(stored.publicKey);
  return { state: holds ? "signed" : "forged", publicKey: stored.publicKey, signer };
}
