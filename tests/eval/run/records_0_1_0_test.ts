import assert from "node:assert/strict";
import { join } from "node:path";
import { requireDocker } from "../../_docker.ts";
import { copyTree, PROJECT_ROOT, scratchDir } from "../../_verdict.ts";
import { runVerdictInProcess } from "../../cli/_in_process.ts";

/**
 * A state folder recorded by verdict 0.1.0 before the typed event catalogue: two scripted loop
 * trials, one trial crashed mid-tool and resumed, one crashed at grading and resumed, one oracle
 * trial. Records made before a change to the event payloads must still verify and replay.
 */
const RECORDS = join(PROJECT_ROOT, "tests/fixtures/records_0_1_0");
const LOOP_RUNS = ["047cc5500ec1", "d51dc8b61c15", "ed7fb3011832"];
const ORACLE_RUN = "31df158416ce";

Deno.test("runs recorded by 0.1.0 before the event catalogue still verify, replay and report", async () => {
  await requireDocker();
  await using home = await scratchDir("records");
  await copyTree(RECORDS, home.path);
  for (const run of [...LOOP_RUNS, ORACLE_RUN]) {
    const verified = await runVerdictInProcess(["verify", run, "--home", home.path]);
    assert.equal(verified.code, 0, verified.stdout + verified.stderr);
    assert.match(verified.stdout, new RegExp(`run ${run} intact`));
  }
  for (const run of LOOP_RUNS) {
    const replayed = await runVerdictInProcess(["replay", run, "--home", home.path]);
    assert.equal(replayed.code, 0, replayed.stdout + replayed.stderr);
    assert.match(replayed.stdout, /: identical \(\d+ steps\)/);
    assert.doesNotMatch(replayed.stdout, /diverged \([1-9]/);
  }
  const stats = await runVerdictInProcess(["stats", "047cc5500ec1", "--home", home.path]);
  assert.equal(stats.code, 0, stats.stderr);
  assert.match(stats.stdout, /2 passed/);
  const html = join(home.path, "trajectory.html");
  const report = await runVerdictInProcess([
    "report",
    "d51dc8b61c15",
    "--home",
    home.path,
    "--html",
    html,
  ]);
  assert.equal(report.code, 0, report.stderr);
  assert.match(await Deno.readTextFile(html), /resumed/i);
});
