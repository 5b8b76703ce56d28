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
import { z } from "zod";
import { sha256Hex } from "../../core/hash.ts";
import { resultsOf } from "../../report/results.ts";
import type { RunRecord, SessionRecord } from "../../store/run_table.ts";
import type { ShardSignature } from "../../store/shard_signatures.ts";
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
 * The row that records a shard's signed statement and signature with the merged run `run`.
 *
 * @example
 * ```ts ignore
 * target.shardSignatures.add(shardRow(id, source.store, source.run, { index: 1, count: 2 }));
 * ```
 */
export function shardRow(
  run: string,
  shardStore: Store,
  shardRun: RunRecord,
  shard: { index: number; count: number },
): ShardSignature {
  const signed = shardStore.signatures.get(shardRun.id);
  return {
    run,
    ...shard,
    statement: new TextDecoder().decode(runStatement(shardStore, shardRun)),
    ...(signed ? { publicKey: signed.publicKey, signature: signed.signature } : {}),
  };
}

/** Every shard of a merged run checked, and what the shards together fail to cover. */
export interface ShardReport {
  /** Each recorded shard, in order. */
  shards: ShardCheck[];
  /** Gaps: a shard missing, or a first attempt no shard's statement names. */
  gaps: string[];
}

/**
 * Checks every shard of a merged run (none for a run that was not merged): each signature over its
 * statement, the statement against the merged record (its sessions exactly, and its results
 * rebuilt from them), and that the shards cover every trial of the run.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openStore } from "../../store/store.ts";
 * import { checkShardSignatures } from "./shard_signatures.ts";
 * const store = openStore(":memory:");
 * store.runs.create({ id: "r1", config: {}, createdAt: 0 });
 * const report = await checkShardSignatures(store, store.runs.get("r1")!);
 * assert.deepEqual(report, { shards: [], gaps: [] });
 * ```
 */
export async function checkShardSignatures(store: Store, run: RunRecord): Promise<ShardReport> {
  const rows = store.shardSignatures.list(run.id);
  if (rows.length === 0) return { shards: [], gaps: [] };
  const attempts = store.runs.attempts(run.id);
  const shards: ShardCheck[] = [];
  const named = new Set<string>();
  for (const row of rows) {
    const label = `${row.index}/${row.count}`;
    const statement = parseStatement(row.statement);
    for (const session of statement?.sessions ?? []) named.add(session.id);
    if (row.publicKey === undefined || row.signature === undefined) {
      shards.push({ shard: label, state: "unsigned" });
      continue;
    }
    const holds = await verifyBytes(
      row.publicKey,
      row.signature,
      new TextEncoder().encode(row.statement),
    );
    const why = !holds
      ? "its signature does not hold over what it says it signed"
      : statement === undefined
      ? "what it signed is not a run statement"
      : statementMisfit(run, attempts, statement, row);
    const signer = { publicKey: row.publicKey, signer: keyFingerprint(row.publicKey) };
    shards.push(
      why === undefined
        ? { shard: label, state: "signed", ...signer }
        : { shard: label, state: "forged", ...signer, why },
    );
  }
  return { shards, gaps: gaps(rows, attempts, named) };
}

const STATEMENT = z.object({
  run: z.string(),
  config: z.record(z.string(), z.unknown()),
  created_at: z.number(),
  status: z.enum(["running", "finished", "interrupted"]),
  sessions: z.array(z.object({
    id: z.string(),
    retry: z.number(),
    head_seq: z.number(),
    head_hash: z.string(),
    end_state_root: z.string().nullable(),
  })),
  results_sha256: z.string(),
});
type Statement = z.infer<typeof STATEMENT>;

function parseStatement(text: string): Statement | undefined {
  try {
    const parsed = STATEMENT.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

// Why a shard's statement does not describe the merged record, if it does not.
function statementMisfit(
  run: RunRecord,
  attempts: readonly SessionRecord[],
  statement: Statement,
  shard: { index: number; count: number },
): string | undefined {
  const { config } = statement;
  if (statement.run !== run.id) return `it was signed for run ${statement.run}`;
  const expected = { index: shard.index, count: shard.count };
  if (canonicalJson(config.shard ?? null) !== canonicalJson(expected)) {
    return `it was signed as another shard (${canonicalJson(config.shard ?? null)})`;
  }
  const other = EXPERIMENT_FIELDS.find((field) =>
    canonicalJson(config[field] ?? null) !== canonicalJson(run.config[field] ?? null)
  );
  if (other !== undefined) return `it was signed for another experiment (its ${other})`;
  const held = new Map(attempts.map((session) => [session.id, session]));
  for (const session of statement.sessions) {
    const mine = held.get(session.id);
    const same = mine !== undefined && mine.retry === session.retry &&
      mine.headSeq === session.head_seq && mine.headHash === session.head_hash &&
      (mine.result?.end_state_root ?? null) === session.end_state_root;
    if (!same) return `session ${session.id} is not what the shard's signer signed`;
  }
  const ids = new Set(statement.sessions.map((session) => session.id));
  const shardRun = {
    id: run.id,
    config,
    createdAt: statement.created_at,
    status: statement.status,
  };
  const results = resultsOf(shardRun, attempts.filter((session) => ids.has(session.id)));
  if (sha256Hex(canonicalJson(results)) !== statement.results_sha256) {
    return "its trials' results are not what the shard's signer signed";
  }
  return undefined;
}

// The shards must be 1..N of one split, and every first attempt of the merged run must be in one
// of their statements (later attempts may come from a resume after the merge).
function gaps(
  rows: readonly ShardSignature[],
  attempts: readonly SessionRecord[],
  named: ReadonlySet<string>,
): string[] {
  const found: string[] = [];
  const count = rows[0].count;
  const indices = rows.map((row) => row.count === count ? row.index : -1);
  for (let index = 1; index <= count; index++) {
    if (!indices.includes(index)) found.push(`shard ${index}/${count} is not recorded`);
  }
  if (rows.length !== count) {
    found.push(`${rows.length} shards are recorded for a split of ${count}`);
  }
  const loose = attempts.filter((session) => session.retry === 0 && !named.has(session.id));
  if (loose.length > 0) {
    found.push(
      `${loose.length} trial${loose.length === 1 ? "" : "s"} (${loose[0].task}#${loose[0].repeat}${
        loose.length > 1 ? ", …" : ""
      }) in no shard's signed statement`,
    );
  }
  return found;
}
