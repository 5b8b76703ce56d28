import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { CorruptionError } from "../../src/core/errors.ts";
import { EVENT, event } from "../../src/store/event_catalogue.ts";
import { chainedSummary } from "../../src/store/run_table.ts";
import { openStore } from "../../src/store/store.ts";
import { syntheticRecord } from "../_synthetic_runs.ts";
import { scratchDir } from "../_verdict.ts";
import { runVerdictInProcess } from "../cli/_in_process.ts";

const RUN = "bbbb2222bbbb";
const SESSION = "s-one";

/** A finished loop run of one session: a request, a large response (a blob) and a verdict. */
async function recordedHome(path: string): Promise<void> {
  await Deno.mkdir(join(path, "runs"), { recursive: true });
  const store = openStore(join(path, "verdict.db"));
  store.runs.create({
    id: RUN,
    config: {
      agent: "loop",
      model: "scripted",
      repeat: 1,
      tasks: ["t"],
      suite_digest: "d",
      seed: 0,
      harness_version: "0.1.0",
      settings: null,
      attempt: 1,
      concurrency: 1,
      paths: ["tasks"],
      task_dirs: { t: "tasks/t" },
      categories: { t: "bugfix" },
    },
    createdAt: 0,
  });
  store.runs.setStatus(RUN, "finished");
  store.runs.createSession({ id: SESSION, run: RUN, task: "t", repeat: 0 });
  store.events.append(SESSION, [
    { kind: "loop.started", payload: { step: 0 } },
    { kind: "model.response", payload: { step: 1, text: "answer ".repeat(1000) } },
  ]);
  const record = syntheticRecord(SESSION, "t", 0, "pass");
  store.events.append(SESSION, [event(EVENT.trialVerdict, chainedSummary(record))]);
  store.runs.finishSession(SESSION, record);
  store.close();
}

function tamper(home: string, sql: string): void {
  const db = new DatabaseSync(join(home, "verdict.db"));
  db.exec(sql);
  db.close();
}

const EDITS: Record<string, string> = {
  "payload JSON cut short": "UPDATE events SET payload = substr(payload, 1, 9) WHERE seq = 0",
  "payload stored as a blob": "UPDATE events SET payload = CAST(payload AS BLOB) WHERE seq = 0",
  "payload edited, still JSON": "UPDATE events SET payload = '{\"step\":7}' WHERE seq = 0",
  "chained event removed": "DELETE FROM events WHERE seq = 1",
};

for (const [edit, sql] of Object.entries(EDITS)) {
  Deno.test(`${edit}: reading the session is refused as a damaged record naming the run to verify`, async () => {
    await using home = await scratchDir("record");
    await recordedHome(home.path);
    tamper(home.path, sql);
    const store = openStore(join(home.path, "verdict.db"));
    assert.throws(
      () => store.events.read(SESSION),
      (error: Error) =>
        error instanceof CorruptionError &&
        error.message.startsWith(`the record is damaged: session ${SESSION}, event `) &&
        error.message.endsWith(`Run 'verdict verify ${RUN}' to see the damage`),
    );
    store.close();
  });
}

Deno.test("a corrupted event: show, report and replay say the record is damaged, run verify (exit 1)", async () => {
  await using home = await scratchDir("record");
  await recordedHome(home.path);
  tamper(home.path, EDITS["payload JSON cut short"]);
  const results = await Promise.all([
    runVerdictInProcess(["show", SESSION, "--home", home.path]),
    runVerdictInProcess(["report", RUN, "--home", home.path]),
    runVerdictInProcess(["replay", RUN, "--home", home.path]),
    runVerdictInProcess(["replay", SESSION, "--home", home.path]),
  ]);
  for (const result of results) {
    assert.equal(result.code, 1, result.stdout + result.stderr);
    assert.doesNotMatch(result.stderr, /SyntaxError|internal error/);
    assert.match(result.stderr, /the record is damaged: session s-one, event 0: /);
    assert.match(result.stderr, new RegExp(`Run 'verdict verify ${RUN}'`));
  }
  const verify = await runVerdictInProcess(["verify", RUN, "--home", home.path]);
  assert.equal(verify.code, 1);
  assert.match(verify.stdout, /run bbbb2222bbbb is corrupt: session s-one, event 0: stored hash/);
});

Deno.test("a stored result or run config that is not JSON is a damaged record, not a SyntaxError", async () => {
  await using home = await scratchDir("record");
  await recordedHome(home.path);
  tamper(home.path, "UPDATE sessions SET result = '{\"verdict\":'");
  const stats = await runVerdictInProcess(["report", RUN, "--home", home.path]);
  assert.equal(stats.code, 1, stats.stderr);
  assert.match(
    stats.stderr,
    /the record is damaged: session s-one \(result\): it is not valid JSON/,
  );
  const verify = await runVerdictInProcess(["verify", RUN, "--home", home.path]);
  assert.equal(verify.code, 1, verify.stderr);
  assert.match(verify.stdout, /is corrupt: .*the record is damaged: session s-one \(result\)/);

  tamper(home.path, "UPDATE runs SET config = 'nope'");
  const show = await runVerdictInProcess(["stats", RUN, "--home", home.path]);
  assert.equal(show.code, 1, show.stderr);
  assert.match(
    show.stderr,
    /the record is damaged: run bbbb2222bbbb \(config\): it is not valid JSON/,
  );
});
