import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { join } from "node:path";
import { migrate, MIGRATIONS } from "../../src/store/migrations.ts";
import { openStore } from "../../src/store/store.ts";
import { scratchDir } from "../_verdict.ts";

Deno.test("a state folder of schema 5 opens with its sessions, ids and events whole, and its foreign keys still enforced", async () => {
  await using dir = await scratchDir("migrations");
  const path = join(dir.path, "verdict.db");
  // A database as Verdict left it before retries: schema 5, one run, one session, one event.
  const old = new DatabaseSync(path);
  migrate(old, path, MIGRATIONS.filter((migration) => migration.version <= 5));
  old.exec(`
    INSERT INTO runs (id, config, created_at) VALUES ('r1', '{}', 0);
    INSERT INTO sessions (id, run_id, task, repeat, head_hash, status, verdict)
      VALUES ('s1', 'r1', 't', 0, 'h', 'finished', 'pass');
    INSERT INTO events (session_id, seq, kind, payload, refs, prev_hash, hash)
      VALUES ('s1', 0, 'note', '{}', '{}', 'h', 'e');
  `);
  old.close();

  const store = openStore(path);
  try {
    assert.deepEqual(
      store.runs.attempts("r1").map(({ id, task, repeat, retry }) => ({ id, task, repeat, retry })),
      [{ id: "s1", task: "t", repeat: 0, retry: 0 }],
    );
    assert.equal(store.events.rows("s1").length, 1);
    assert.equal(store.runs.session("s1")!.status, "finished");
    assert.throws(
      () => store.events.append("no-such-session", [{ kind: "note", payload: {} }]),
      /FOREIGN KEY/,
    );
    store.runs.createSession({ id: "s1-retry", run: "r1", task: "t", repeat: 0, retry: 1 });
    assert.throws(
      () => store.runs.createSession({ id: "s1-again", run: "r1", task: "t", repeat: 0, retry: 1 }),
      /UNIQUE/,
    );
  } finally {
    store.close();
  }
  const check = new DatabaseSync(path);
  assert.deepEqual(check.prepare("PRAGMA foreign_key_check").all(), []);
  check.close();
});
