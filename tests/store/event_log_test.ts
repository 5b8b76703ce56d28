import assert from "node:assert/strict";
import { join } from "node:path";
import { canonicalJson } from "../../src/core/canonical_json.ts";
import { InputError } from "../../src/core/errors.ts";
import { sha256Hex } from "../../src/core/hash.ts";
import { BLOB_THRESHOLD_BYTES, eventHash, genesisHash } from "../../src/store/event_log.ts";
import { LATEST_SCHEMA_VERSION, MIGRATIONS } from "../../src/store/migrations.ts";
import { openStore, type Store } from "../../src/store/store.ts";
import { scratchDir } from "../_verdict.ts";
import { syntheticRecord } from "../_synthetic_runs.ts";

function storeWithSession(path = ":memory:"): Store {
  const store = openStore(path);
  store.runs.create({ id: "run1", config: { seed: 1 }, createdAt: 0 });
  store.runs.createSession({ id: "s1", run: "run1", task: "t", repeat: 0 });
  return store;
}

Deno.test("events chain from the session's genesis hash, each over the one before", () => {
  const store = storeWithSession();
  const [first, second] = store.events.append("s1", [
    { kind: "model.request", payload: { step: 1 } },
    { kind: "model.response", payload: { text: "hi" } },
  ]);
  assert.deepEqual(first.seq, 0);
  assert.deepEqual(first.prevHash, genesisHash("s1"));
  assert.deepEqual(second.prevHash, first.hash);
  assert.deepEqual(
    first.hash,
    sha256Hex(
      `${
        genesisHash("s1")
      }\n{"kind":"model.request","payload":{"step":1},"refs":{},"seq":0,"session":"s1"}`,
    ),
  );
  assert.deepEqual(store.events.head("s1"), { seq: 1, hash: second.hash });
  assert.equal(store.runs.session("s1")?.headSeq, -1, "the head is pinned only when finished");
  store.runs.finishSession("s1", syntheticRecord("s1", "t", 0, "pass"));
  assert.deepEqual(store.runs.session("s1")?.headHash, second.hash);
  assert.deepEqual(store.events.read("s1").map((event) => event.payload), [{ step: 1 }, {
    text: "hi",
  }]);
  store.close();
});

Deno.test("a payload field over 4096 bytes is stored once as a blob and read back checked", () => {
  const store = storeWithSession();
  const big = "x".repeat(BLOB_THRESHOLD_BYTES);
  const small = "y".repeat(100);
  store.events.append("s1", [
    { kind: "tool.result", payload: { output: big, exit: 0, note: small } },
    { kind: "tool.result", payload: { output: big, exit: 1 } },
  ]);
  const rows = store.events.rows("s1");
  const blobHash = sha256Hex(canonicalJson(big));
  assert.deepEqual(JSON.parse(rows[0].refs), { output: blobHash });
  assert.deepEqual(JSON.parse(rows[0].payload), { exit: 0, note: small });
  const count = store.db.prepare("SELECT COUNT(*) AS n FROM blobs").get() as { n: number };
  assert.deepEqual(count.n, 1);
  assert.deepEqual(store.events.read("s1")[1].payload, { output: big, exit: 1 });
  store.close();
});

Deno.test("the threshold counts UTF-8 bytes, not characters", () => {
  const store = storeWithSession();
  const accented = "é".repeat(2100); // 2,100 characters, 4,200 bytes, plus quotes
  store.events.append("s1", [{ kind: "k", payload: { text: accented } }]);
  assert.deepEqual(Object.keys(JSON.parse(store.events.rows("s1")[0].refs)), ["text"]);
  store.close();
});

Deno.test("reading a blob whose bytes were changed is refused", () => {
  const store = storeWithSession();
  store.events.append("s1", [{ kind: "k", payload: { big: "z".repeat(5000) } }]);
  store.db.exec("UPDATE blobs SET data = CAST('tampered' AS BLOB)");
  assert.throws(() => store.events.read("s1"), {
    name: "CorruptionError",
    message: /does\ not\ match\ its\ content/,
  });
  store.close();
});

Deno.test("the events of one step commit together or not at all", () => {
  const store = storeWithSession();
  store.events.append("s1", [{ kind: "ok", payload: {} }]);
  const cycle: Record<string, unknown> = {};
  cycle.self = cycle;
  assert.throws(() =>
    store.events.append("s1", [
      { kind: "first", payload: { fine: true } },
      { kind: "second", payload: { bad: cycle } },
    ]), TypeError);
  assert.deepEqual(store.events.read("s1").map((event) => event.kind), ["ok"]);
  assert.deepEqual(store.events.head("s1").seq, 0);
  store.close();
});

Deno.test("the stored hash is recomputable from the row alone", () => {
  const store = storeWithSession();
  store.events.append("s1", [{ kind: "k", payload: { a: [1, 2] } }]);
  const [row] = store.events.rows("s1");
  assert.deepEqual(eventHash(row), row.hash);
  store.close();
});

Deno.test("the database is WAL with foreign keys on, and sessions need a run", async () => {
  await using dir = await scratchDir("store");
  const store = openStore(join(dir.path, "verdict.db"));
  assert.deepEqual(
    (store.db.prepare("PRAGMA journal_mode").get() as { journal_mode: string }).journal_mode,
    "wal",
  );
  assert.deepEqual(
    (store.db.prepare("PRAGMA foreign_keys").get() as { foreign_keys: number }).foreign_keys,
    1,
  );
  assert.throws(
    () => store.runs.createSession({ id: "s", run: "nope", task: "t", repeat: 0 }),
    /FOREIGN KEY/,
  );
  store.close();
});

Deno.test("migrations are recorded, run once, and a newer database is refused with exit 2", async () => {
  await using dir = await scratchDir("store");
  const path = join(dir.path, "verdict.db");
  openStore(path).close();
  const store = openStore(path);
  const versions = store.db.prepare("SELECT version FROM schema_migrations ORDER BY version").all();
  assert.deepEqual(
    versions.map((row) => row.version),
    MIGRATIONS.map((migration) => migration.version),
  );
  assert.equal(MIGRATIONS.at(-1)!.version, LATEST_SCHEMA_VERSION);
  store.db.prepare("INSERT INTO schema_migrations (version, name) VALUES (?, 'from the future')")
    .run(
      LATEST_SCHEMA_VERSION + 1,
    );
  store.close();
  assert.throws(() => openStore(path), (error) => {
    assert.ok(error instanceof InputError);
    assert.equal(error.exitCode, 2);
    assert.ok(error.message.includes(path) && error.message.includes("schema_migrations"));
    assert.ok(error.message.includes("newer verdict"));
    return true;
  });
});

Deno.test("an event whose payload is not a JSON object is refused before anything is written", () => {
  const store = openStore(":memory:");
  store.runs.create({ id: "r", config: {}, createdAt: 0 });
  store.runs.createSession({ id: "s", run: "r", task: "t", repeat: 0 });
  assert.throws(
    () =>
      store.events.append("s", [{ kind: "a", payload: {} }, { kind: "b", payload: [1] as never }]),
    /an event payload must be a JSON object/,
  );
  assert.equal(store.events.read("s").length, 0);
  store.close();
});
