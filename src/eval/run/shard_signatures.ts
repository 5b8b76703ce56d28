/**
 * Who vouched for each shard of a merged run. `merge` keeps every shard's signed statement and
 * signature with the merged run; `verify` checks each signature again and checks that the
 * statement describes the merged record: the same run and configuration, and every session it
 * names with the same head and end-state root. A shard rewritten after it was signed, or a
 * statement that does not fit the record, is a forged shard.
 *
 * @module
 */
import { canonicalJson } from "../../core/canonical_json.ts";
import { keyFingerprint, verifyBytes } from "../../core/ed25519.ts";
import type { RunRecord } from "../../store/run_table.ts";
import type { Store } from "../../store/store.ts";
import { EXPERIMENT_FIELDS } from "../setup/run_identity.ts";
import { runStatement } from "./run_signature.ts";

/** How one shard of a merged run checks out. */
export interface ShardCheck {
  /** The shard, as `K/N`. */
  shard: string;
  /** `signed`: its signature holds and fits the record; `forged`: it does not; or unsigned. */
  state: "signed" | "unsigned" | "forged";
  /** The signer's public key, when signed or forged. */
  publicKey?: string;
  /** The signer's fingerprint, when signed or forged. */
  signer?: string;
  /** Why a forged shard is forged. */
  why?: string;
}

/**
 * Records a shard's signed statement and signature with the merged run `run` in `target` (inside
 * the merge's transaction).
 *
 * @example
 * ```ts ignore
 * recordShard(target, id, source.store, source.run, { index: 1, count: 2 });
 * ```
 */
export function recordShard(
  target: Store,
  run: string,
  shardStore: Store,
  shardRun: RunRecord,
  shard: { index: number; count: number },
): void {
  const signed = shardStore.signatures.get(shardRun.id);
  target.shardSignatures.add({
    run,
    ...shard,
    statement: new TextDecoder().decode(runStatement(shardStore, shardRun)),
    ...(signed ? { publicKey: signed.publicKey, signature: signed.signature } : {}),
  });
}

/**
 * Checks every shard of a merged run; none for a run that was not merged.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openStore } from "../../store/store.ts";
 * import { checkShardSignatures } from "./shard_signatures.ts";
 * const store = openStore(":memory:");
 * store.runs.create({ id: "r1", config: {}, createdAt: 0 });
 * assert.deepEqual(await checkShardSignatures(store, store.runs.get("r1")!), []);
 * ```
 */
export async function checkShardSignatures(store: Store, run: RunRecord): Promise<ShardCheck[]> {
  const checks: ShardCheck[] = [];
  for (const shard of store.shardSignatures.list(run.id)) {
    const label = `${shard.index}/${shard.count}`;
    if (shard.publicKey === undefined || shard.signature === undefined) {
      checks.push({ shard: label, state: "unsigned" });
      continue;
    }
    const holds = await verifyBytes(
      shard.publicKey,
      shard.signature,
      new TextEncoder().encode(shard.statement),
    );
    const why = holds
      ? statementMisfit(store, run, shard.statement, shard)
      : "its signature does not hold over what it says it signed";
    const signer = { publicKey: shard.publicKey, signer: keyFingerprint(shard.publicKey) };
    checks.push(
      why === undefined
        ? { shard: label, state: "signed", ...signer }
        : { shard: label, state: "forged", ...signer, why },
    );
  }
  return checks;
}

interface StatedSession {
  id: string;
  retry: number;
  head_seq: number;
  head_hash: string;
  end_state_root: string | null;
}

// Why a shard's statement does not describe the merged record, if it does not.
function statementMisfit(
  store: Store,
  run: RunRecord,
  text: string,
  shard: { index: number; count: number },
): string | undefined {
  const statement = JSON.parse(text) as {
    run?: string;
    config?: Record<string, unknown>;
    sessions?: StatedSession[];
  };
  const config = statement.config ?? {};
  if (statement.run !== run.id) return `it was signed for run ${statement.run}`;
  const expected = { index: shard.index, count: shard.count };
  if (canonicalJson(config.shard ?? null) !== canonicalJson(expected)) {
    return `it was signed as another shard (${canonicalJson(config.shard ?? null)})`;
  }
  const other = EXPERIMENT_FIELDS.find((field) =>
    canonicalJson(config[field] ?? null) !== canonicalJson(run.config[field] ?? null)
  );
  if (other !== undefined) return `it was signed for another experiment (its ${other})`;
  const held = new Map(store.runs.attempts(run.id).map((session) => [session.id, session]));
  for (const session of statement.sessions ?? []) {
    const mine = held.get(session.id);
    const same = mine !== undefined && mine.retry === session.retry &&
      mine.headSeq === session.head_seq && mine.headHash === session.head_hash &&
      (mine.result?.end_state_root ?? null) === session.end_state_root;
    if (!same) return `session ${session.id} is not what the shard's signer signed`;
  }
  return undefined;
}
