import assert from "node:assert/strict";
import { writeUnfinishedRun } from "../../_unfinished_run.ts";
import { scratchDir } from "../../_verdict.ts";
import { runVerdictInProcess } from "../../cli/_in_process.ts";

Deno.test("replay of an unfinished run is not 'identical': it says unfinished and exits 1", async () => {
  await using home = await scratchDir("replay");
  await writeUnfinishedRun(home.path, "cccc3333cccc", {
    repeats: 2,
    finished: 0,
    status: "interrupted",
  });
  const replay = await runVerdictInProcess(["replay", "cccc3333cccc", "--home", home.path]);
  assert.equal(replay.code, 1, replay.stdout + replay.stderr);
  assert.match(
    replay.stdout,
    /^session cccc3333cccc-t-0 \(t#0\): unfinished: it has no verdict yet: run 'verdict resume cccc3333cccc', then replay it$/m,
  );
  assert.match(
    replay.stdout,
    /replay of run cccc3333cccc: unfinished \(0 identical, 0 diverged, 0 skipped, 2 unfinished\)/,
  );
  assert.doesNotMatch(replay.stdout, /: identical/);

  const json = await runVerdictInProcess(["replay", "cccc3333cccc", "--json", "--home", home.path]);
  assert.equal(json.code, 1);
  const report = JSON.parse(json.stdout);
  assert.deepEqual([report.identical, report.unfinished], [false, 2]);

  const session = await runVerdictInProcess(["replay", "cccc3333cccc-t-1", "--home", home.path]);
  assert.equal(session.code, 1, "one unfinished session alone is not identical either");
});
