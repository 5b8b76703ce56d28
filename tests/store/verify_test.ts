import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { EVENT, event } from "../../src/store/event_catalogue.ts";
import { chainedSummary } from "../../src/store/run_table.ts";
import { openStore } from "../../src/store/store.ts";
import { syntheticRecord } from "../_synthetic_runs.ts";
import { verifyRun } from "../../src/store/verify.ts";
import { scratchDir } from "../_verdict.ts";
import { runVerdictInProcess } from "../cli/_in_process.ts";

/** A real state directory with one run of two sessions, eight events each, some with blobs. */
async function recordedHome(path: string): Promise<void> {
  await Deno.mkdir(path, { recursive: true });
  const store = openStore(join(path, "verdict.db"));
  store.runs.create({ id: "abc123def456", config: { seed: 7 }, createdAt: 0 });
  for (const session of ["s-one", "s-two"]) {
    store.runs.createSession({ id: session, run: "abc123def456", task: session, repeat: 0 });
    for (let step = 0; step < 4; step++) {
      store.events.append(session, [
        { kind: "model.response", payload: { step, text: `answer number ${step}` } },
        { kind: "tool.result", payload: { step, output: `${session} ${step} `.repeat(600) } },
      ]);
    }
    const record = syntheticRecord(session, session, 0, "pass");
    store.events.append(session, [event(EVENT.trialVerdict, chainedSummary(record))]);
    store.runs.finishSession(session, record);
  }
  store.close();
}

function tamper(home: string, sql: (db: DatabaseSync) => void): void {
  const db = new DatabaseSync(join(home, "verdict.db"));
  sql(db);
  db.close();
}

Deno.test("verify passes an intact run with exit 0, a one-line summary and what it proves", async () => {
  await using dir = await scratchDir("verify");
  await recordedHome(dir.path);
  const result = await runVerdictInProcess(["verify", "abc123def456", "--home", dir.path]);
  assert.deepEqual(result.code, 0, result.stderr);
  const [summary, blank, ...paragraph] = result.stdout.trimEnd().split("\n");
  assert.deepEqual(
    summary,
    "run abc123def456 intact: 2 sessions, 18 events and 8 blobs verified; unsigned (no " +
      "signing key when it was recorded): nothing says who wrote it",
  );
  assert.equal(blank, "");
  assert.match(paragraph.join(" "), /^What this proves: .* every key it names\.$/);
  const byPrefix = await runVerdictInProcess(["verify", "abc1", "--home", dir.path]);
  assert.deepEqual(byPrefix.code, 0, byPrefix.stderr);
});

Deno.test("verify catches one flipped byte in an event payload", async () => {
  await using dir = await scratchDir("verify");
  await recordedHome(dir.path);
  tamper(
    dir.path,
    (db) =>
      db.exec(`UPDATE events SET payload = replace(payload, 'number 2', 'numbes 2')
             WHERE session_id = 's-two' AND seq = 4`),
  );
  const result = await runVerdictInProcess(["verify", "abc123def456", "--home", dir.path]);
  assert.deepEqual(result.code, 1, result.stderr);
  assert.match(
    result.stdout,
    /corrupt: session s-two, event 4: stored hash \w+ but the event's content hashes to \w+/,
  );
});

Deno.test("verify catches one flipped byte in a blob", async () => {
  await using dir = await scratchDir("verify");
  await recordedHome(dir.path);
  let blob = "";
  tamper(dir.path, (db) => {
    const refs = db.prepare("SELECT refs FROM events WHERE session_id = 's-one' AND seq = 3")
      .get() as { refs: string };
    blob = JSON.parse(refs.refs).output;
    const row = db.prepare("SELECT data FROM blobs WHERE hash = ?").get(blob) as {
      data: Uint8Array;
    };
    const data = new Uint8Array(row.data);
    data[100] ^= 0x01;
    db.prepare("UPDATE blobs SET data = ? WHERE hash = ?").run(data, blob);
  });
  const result = await runVerdictInProcess(["verify", "abc123def456", "--home", dir.path]);
  assert.deepEqual(result.code, 1);
  assert.ok(
    result.stdout.includes(`session s-one, event 3: blob ${blob} does not match its content`),
    result.stdout,
  );
});

Deno.test("verify catches a deleted event, in the middle or at the end", async () => {
  await using dir = await scratchDir("verify");
  await recordedHome(dir.path);
  tamper(dir.path, (db) => db.exec("DELETE FROM events WHERE session_id = 's-one' AND seq = 5"));
  const middle = await runVerdictInProcess(["verify", "abc123def456", "--home", dir.path]);
  assert.deepEqual(middle.code, 1);
  assert.match(
    middle.stdout,
    /session s-one, event 6: expected event 5 next but found event 6 \(an event is missing\)/,
  );

  await recordedHome(join(dir.path, "tail"));
  tamper(
    join(dir.path, "tail"),
    (db) => db.exec("DELETE FROM events WHERE session_id = 's-two' AND seq = 8"),
  );
  const tail = await runVerdictInProcess([
    "verify",
    "abc123def456",
    "--home",
    join(dir.path, "tail"),
  ]);
  assert.deepEqual(tail.code, 1);
  assert.match(
    tail.stdout,
    /session s-two: the session head names event 8 .* but the log ends at event 7/,
  );
});

Deno.test("verify catches a verdict edited outside the hash chain", async () => {
  await using dir = await scratchDir("verify");
  await recordedHome(dir.path);
  // The column that `stats` reads, alone: a pass rate could be changed without touching a hash.
  tamper(dir.path, (db) => db.exec("UPDATE sessions SET verdict = 'fail' WHERE id = 's-one'"));
  const column = await runVerdictInProcess(["verify", "abc123def456", "--home", dir.path]);
  assert.deepEqual(column.code, 1);
  assert.match(
    column.stdout,
    /session s-one: the summary column verdict is "fail" but the stored result says "pass"/,
  );

  await recordedHome(join(dir.path, "both"));
  // The column and the result JSON together: the chained verdict event still disagrees.
  tamper(
    join(dir.path, "both"),
    (db) =>
      db.exec(`UPDATE sessions SET verdict = 'fail', result = replace(result, '"verdict":"pass"',
             '"verdict":"fail"') WHERE id = 's-two'`),
  );
  const both = await runVerdictInProcess([
    "verify",
    "abc123def456",
    "--home",
    join(dir.path, "both"),
  ]);
  assert.deepEqual(both.code, 1);
  assert.match(
    both.stdout,
    /session s-two: the stored result's verdict is "fail" but the chained trial.verdict event \(event 8\) says "pass"/,
  );

  await recordedHome(join(dir.path, "cost"));
  // A cheaper run, in the columns and the result alike: the chained event still has the cost.
  tamper(
    join(dir.path, "cost"),
    (db) =>
      db.exec(`UPDATE sessions SET cost_usd = 0.001, result = replace(result, '"cost_usd":0.0125',
             '"cost_usd":0.001') WHERE id = 's-one'`),
  );
  const cost = await runVerdictInProcess([
    "verify",
    "abc123def456",
    "--home",
    join(dir.path, "cost"),
  ]);
  assert.equal(cost.code, 1);
  assert.match(
    cost.stdout,
    /session s-one: the stored result's cost_usd is 0.001 but the chained trial.verdict event \(event 8\) says 0.0125/,
  );
});

Deno.test("verify catches two swapped events", async () => {
  await using dir = await scratchDir("verify");
  await recordedHome(dir.path);
  tamper(dir.path, (db) => {
    db.exec("UPDATE events SET seq = -1 WHERE session_id = 's-two' AND seq = 2");
    db.exec("UPDATE events SET seq = 2 WHERE session_id = 's-two' AND seq = 3");
    db.exec("UPDATE events SET seq = 3 WHERE session_id = 's-two' AND seq = -1");
  });
  const store = openStore(join(dir.path, "verdict.db"));
  const report = verifyRun(store, "abc123def456");
  store.close();
  assert.deepEqual(report.problems[0].session, "s-two");
  assert.deepEqual(report.problems[0].seq, 2);
  const result = await runVerdictInProcess([
    "verify",
    "abc123def456",
    "--home",
    dir.path,
    "--json",
  ]);
  assert.deepEqual(result.code, 1);
  const json = JSON.parse(result.stdout);
  assert.deepEqual(json.intact, false);
  assert.deepEqual(json.problems[0].seq, 2);
});

Deno.test("verify names a missing state directory and an unknown run with exit 2", async () => {
  await using dir = await scratchDir("verify");
  const missing = await runVerdictInProcess(["verify", "x", "--home", join(dir.path, "nowhere")]);
  assert.deepEqual(missing.code, 2);
  assert.ok(missing.stderr.includes("no state database at"), missing.stderr);
  await recordedHome(dir.path);
  const unknown = await runVerdictInProcess(["verify", "abc123def457", "--home", dir.path]);
  assert.deepEqual(unknown.code, 2);
  assert.ok(unknown.stderr.includes("did you mean abc123def456?"), unknown.stderr);
});

Deno.test("a database from a newer Verdict is refused with exit 2, naming the file and the fix", async () => {
  await using dir = await scratchDir("verify");
  await recordedHome(dir.path);
  tamper(
    dir.path,
    (db) => db.exec("INSERT INTO schema_migrations (version, name) VALUES (99, 'future')"),
  );
  const result = await runVerdictInProcess(["verify", "abc123def456", "--home", dir.path]);
  assert.deepEqual(result.code, 2);
  assert.ok(result.stderr.includes(join(dir.path, "verdict.db")), result.stderr);
  assert.ok(result.stderr.includes("schema version 99"), result.stderr);
  assert.ok(result.stderr.includes("Fix: run a newer verdict"), result.stderr);
});

/** A run whose one trial ended `first` and was then retried: the retry's first event as given. */
function retriedRun(
  first: "infrastructure_error" | "agent_failure",
  retryStart: Record<string, unknown>,
): ReturnType<typeof openStore> {
  const store = openStore(":memory:");
  store.runs.create({ id: "r1", config: {}, createdAt: 0 });
  const attempts = [
    {
      id: "attempt-0",
      retry: 0,
      record: { ...syntheticRecord("attempt-0", "t", 0, "fail"), bucket: first },
    },
    { id: "attempt-1", retry: 1, record: syntheticRecord("attempt-1", "t", 0, "pass") },
  ] as const;
  for (const { id, retry, record } of attempts) {
    store.runs.createSession({ id, run: "r1", task: "t", repeat: 0, retry });
    const start = retry === 0 ? { task: "t", repeat: 0, agent: "a", image: "i" } : retryStart;
    store.events.append(id, [
      event(EVENT.trialStarted, start as never),
      event(EVENT.trialVerdict, chainedSummary(record)),
    ]);
    store.runs.finishSession(id, record);
  }
  return store;
}

const RETRY_START = { task: "t", repeat: 0, agent: "a", image: "i", retry_of: "attempt-0" };

Deno.test("a retried trial counts once, by its last attempt, and the earlier attempt still verifies", () => {
  const store = retriedRun("infrastructure_error", RETRY_START);
  try {
    assert.deepEqual(verifyRun(store, "r1").problems, []);
    assert.equal(verifyRun(store, "r1").sessions, 2);
    assert.deepEqual(store.runs.sessions("r1").map((session) => session.id), ["attempt-1"]);
    assert.deepEqual(store.runs.trialSummaries("r1").map((trial) => trial.verdict), ["pass"]);
    assert.equal(store.runs.attempts("r1").length, 2);
  } finally {
    store.close();
  }
});

Deno.test("verify flags a retry of a trial the agent failed, or one that does not name what it retries", () => {
  const hidden = retriedRun("agent_failure", RETRY_START);
  try {
    assert.deepEqual(verifyRun(hidden, "r1").problems.map((problem) => problem.what), [
      "attempt 1 retries session attempt-0, whose chained verdict is 'agent_failure', not an " +
      "infrastructure error: only those are retried",
    ]);
  } finally {
    hidden.close();
  }
  const unnamed = retriedRun("infrastructure_error", {
    task: "t",
    repeat: 0,
    agent: "a",
    image: "i",
  });
  try {
    assert.match(verifyRun(unnamed, "r1").problems[0].what, /does not name the attempt it retries/);
  } finally {
    unnamed.close();
  }
  const elsewhere = retriedRun("infrastructure_error", { ...RETRY_START, retry_of: "attempt-1" });
  try {
    assert.match(verifyRun(elsewhere, "r1").problems[0].what, /not the attempt before it/);
  } finally {
    elsewhere.close();
  }
});
