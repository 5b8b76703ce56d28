/**
 * What a forger without the signing key can do to a state database: rewrite a failed trial's
 * verdict to a pass with its hash chain and summary recomputed, drop a run's signature, or sign the
 * forged run again with a key of their own.
 *
 * @module
 */
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import type { SigningKey } from "../../../src/core/ed25519.ts";
import { signRun } from "../../../src/eval/run/run_signature.ts";
import { eventHash } from "../../../src/store/event_log.ts";
import { openStore } from "../../../src/store/store.ts";

/** Rewrites the first session's verdict to a pass, its chain and its summary recomputed. */
export function forgePass(home: string): void {
  const db = new DatabaseSync(join(home, "verdict.db"));
  const [session] = db.prepare("SELECT id, result FROM sessions ORDER BY id").all() as {
    id: string;
    result: string;
  }[];
  const last = db.prepare(
    "SELECT * FROM events WHERE session_id = ? ORDER BY seq DESC LIMIT 1",
  ).get(session.id) as Record<string, string & number>;
  const payload = JSON.stringify({ ...JSON.parse(last.payload), verdict: "pass", bucket: "pass" });
  const hash = eventHash({
    session: session.id,
    seq: last.seq,
    kind: last.kind,
    payload,
    refs: last.refs,
    prevHash: last.prev_hash,
  });
  const result = JSON.stringify({ ...JSON.parse(session.result), verdict: "pass", bucket: "pass" });
  db.prepare("UPDATE events SET payload = ?, hash = ? WHERE session_id = ? AND seq = ?")
    .run(payload, hash, session.id, last.seq);
  db.prepare(
    "UPDATE sessions SET result = ?, verdict = 'pass', bucket = 'pass', head_hash = ? WHERE id = ?",
  ).run(result, hash, session.id);
  db.close();
}

/** Drops every run's signature, as a forger hiding the forgery would. */
export function dropSignatures(home: string): void {
  const db = new DatabaseSync(join(home, "verdict.db"));
  db.exec("DELETE FROM run_signatures");
  db.close();
}

/** Signs the one run of `home` again, as it now stands, with the forger's own key. */
export async function signAgain(home: string, key: SigningKey): Promise<void> {
  const store = openStore(join(home, "verdict.db"));
  try {
    await signRun(store, store.runs.list()[0], key);
  } finally {
    store.close();
  }
}
