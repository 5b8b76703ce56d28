import assert from "node:assert/strict";
import { writeUnfinishedRun } from "../_unfinished_run.ts";
import { scratchDir } from "../_verdict.ts";
import { runVerdictInProcess } from "../cli/_in_process.ts";

Deno.test("stats of an interrupted run says how many trials are pending, in text and --json", async () => {
  await using home = await scratchDir("stats");
  await writeUnfinishedRun(home.path, "dddd4444dddd", {
    repeats: 3,
    finished: 1,
    status: "interrupted",
  });
  const text = await runVerdictInProcess(["stats", "dddd4444dddd", "--home", home.path]);
  assert.equal(text.code, 0, text.stderr);
  assert.match(
    text.stdout,
    /^run dddd4444dddd \(loop, scripted\): 1 of 1 finished trials passed, 100\.0% \[20\.7%, 100\.0%\]; 2 more pending: the run was interrupted \('verdict resume dddd4444dddd' finishes it\)$/m,
  );
  const json = JSON.parse(
    (await runVerdictInProcess(["stats", "dddd4444dddd", "--json", "--home", home.path])).stdout,
  );
  assert.deepEqual([json.overall.n, json.overall.pending], [1, 2]);
});

Deno.test("stats of a run with no finished trial yet does not say '0 of 0 passed'", async () => {
  await using home = await scratchDir("stats");
  await writeUnfinishedRun(home.path, "eeee5555eeee", {
    repeats: 2,
    finished: 0,
    status: "running",
  });
  const text = await runVerdictInProcess(["stats", "eeee5555eeee", "--home", home.path]);
  assert.equal(text.code, 0, text.stderr);
  assert.doesNotMatch(text.stdout, /0 of 0 passed/);
  assert.match(
    text.stdout,
    /^run eeee5555eeee \(loop, scripted\): no trial has finished yet; 2 pending: the run is still going, or was killed/m,
  );
});
