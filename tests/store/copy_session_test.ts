/**
 * `copySession`: a finished session copied into another store as it is (chain, blobs, result), and
 * a damaged source refused rather than carried over.
 */
import assert from "node:assert/strict";
import { CorruptionError } from "../../src/core/errors.ts";
import { copySession } from "../../src/store/copy_session.ts";
import { EVENT, event } from "../../src/store/event_catalogue.ts";
import { chainedSummary } from "../../src/store/run_table.ts";
import { openStore, type Store } from "../../src/store/store.ts";
import { verifyRun } from "../../src/store/verify.ts";
import { syntheticRecord } from "../_synthetic_runs.ts";

const BIG = "x".repeat(10_000); // over the blob threshold: stored as a blob
const EXTRA = "an extra blob an event stands for";

/** A store with run `r` and its finished session `s`: a blob field, an extra blob, a verdict. */
function sourceStore(): { store: Store; extra: string } {
  const store = openStore(":memory:");
  store.runs.create({ id: "r", config: {}, createdAt: 0 });
  store.runs.createSession({ id: "s", run: "r", task: "t", repeat: 0 });
  const extra = store.blobs.putText(EXTRA);
  const record = syntheticRecord("s", "t", 0, "pass");
  store.events.append("s", [
    { kind: "note", payload: { text: BIG, extra } },
    event(EVENT.trialVerdict, chainedSummary(record)),
  ], 1234);
  store.runs.finishSession("s", record);
  store.runs.setStatus("r", "finished");
  return { store, extra };
}

function targetStore(): Store {
  const store = openStore(":memory:");
  store.runs.create({ id: "r", config: {}, createdAt: 0 });
  return store;
}

// The extra blob, named by the note's `extra` field (as a snapshot root names its files).
const references = (kind: string, payload: Record<string, unknown>) =>
  kind === "note" ? [payload.extra as string] : [];

Deno.test("a copied session is the same session: rows, head, result, blobs; it verifies", () => {
  const { store: from, extra } = sourceStore();
  const to = targetStore();
  const copied = to.transaction(() => copySession(from, to, from.runs.session("s")!, references));
  assert.deepEqual(copied, { events: 2, blobs: 2 });
  assert.deepEqual(to.events.rows("s"), from.events.rows("s"));
  assert.deepEqual(to.runs.session("s"), from.runs.session("s"));
  assert.deepEqual(to.runs.trialSummaries("r"), from.runs.trialSummaries("r"));
  assert.equal(to.blobs.getText(extra), EXTRA);
  assert.equal(to.events.read("s")[0].payload.text, BIG);
  to.runs.setStatus("r", "finished");
  assert.deepEqual(verifyRun(to, "r", references).problems, []);

  // Blobs the target holds already are not copied again.
  const again = targetStore();
  again.blobs.putText(EXTRA);
  const second = again.transaction(() =>
    copySession(from, again, from.runs.session("s")!, references)
  );
  assert.deepEqual(second, { events: 2, blobs: 1 });
});

Deno.test("a damaged source is refused, naming the session and event, and the target keeps nothing", () => {
  const cases: [string, (from: Store) => void, RegExp][] = [
    [
      "an edited event",
      (from) => from.db.exec(`UPDATE events SET payload = '{"extra":"x"}' WHERE seq = 0`),
      /session s, event 0: its content no longer matches its hash chain/,
    ],
    [
      "a dropped last event",
      (from) => from.db.exec("DELETE FROM events WHERE seq = 1"),
      /session s: its pinned head \(event 1\) is not the end of its log \(event 0\)/,
    ],
    [
      "a blob whose bytes changed",
      (from) => from.db.exec(`UPDATE blobs SET data = X'00' WHERE size = ${EXTRA.length}`),
      /does not match its content/,
    ],
    [
      "an unfinished session",
      (from) => from.db.exec("UPDATE sessions SET status = 'running'"),
      /session s: it is not a finished session with a result/,
    ],
  ];
  for (const [what, damage, expected] of cases) {
    const { store: from } = sourceStore();
    damage(from);
    const to = targetStore();
    assert.throws(
      () => to.transaction(() => copySession(from, to, from.runs.session("s")!, references)),
      (error) => error instanceof CorruptionError && expected.test(error.message),
      what,
    );
    assert.equal(to.runs.session("s"), undefined, `${what}: no session left behind`);
    assert.equal(to.db.prepare("SELECT COUNT(*) AS n FROM blobs").get()!.n, 0, what);
  }
});
