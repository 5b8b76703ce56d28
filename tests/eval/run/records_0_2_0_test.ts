import assert from "node:assert/strict";
import { join } from "node:path";
import type { Results } from "../../../src/report/results.ts";
import { requireDocker } from "../../_docker.ts";
import { copyTree, PROJECT_ROOT, runVerdict, scratchDir } from "../../_verdict.ts";
import { runVerdictInProcess } from "../../cli/_in_process.ts";

/**
 * A state folder recorded by verdict 0.2.0 before the trial became one line (issue 27), over
 * three bundled tasks copied next to it (so their digest never moves): a scripted loop run, an
 * oracle run and a nop run, all with `--seed 7`. Runs recorded before a restructuring must still
 * verify and replay, and the same experiment must still get the same run id and verdicts.
 */
const FIXTURE = "tests/fixtures/records_0_2_0";
const TASKS = `${FIXTURE}/tasks`;
const RUNS = { loop: "0501836b0556", oracle: "ac169f8be9b4", nop: "18c9121a1257" };
const NOP_VERDICTS = {
  "add-json-output": "fail",
  "fix-slugify": "fail",
  "shell-count-errors": "fail",
};

function verdicts(results: Results): Record<string, string> {
  return Object.fromEntries(results.trials.map((trial) => [trial.task, trial.verdict]));
}

Deno.test("runs recorded by 0.2.0 before the trial line still verify, and the loop run replays identically", async () => {
  await requireDocker();
  await using home = await scratchDir("records-0.2.0");
  await copyTree(join(PROJECT_ROOT, FIXTURE), home.path);
  for (const run of Object.values(RUNS)) {
    const verified = await runVerdictInProcess(["verify", run, "--home", home.path]);
    assert.equal(verified.code, 0, verified.stdout + verified.stderr);
    assert.match(verified.stdout, new RegExp(`run ${run} intact`));
  }
  const replayed = await runVerdictInProcess(["replay", RUNS.loop, "--home", home.path]);
  assert.equal(replayed.code, 0, replayed.stdout + replayed.stderr);
  assert.equal(replayed.stdout.match(/: identical \(\d+ steps\)/g)?.length, 3, replayed.stdout);
});

Deno.test("the same experiment gets the recorded run id and verdicts today", async () => {
  await requireDocker();
  await using home = await scratchDir("records-0.2.0-again");
  for (const [agent, expected] of [["loop", undefined], ["nop", NOP_VERDICTS]] as const) {
    const run = await runVerdict([
      "eval",
      TASKS,
      "--agent",
      agent,
      "--seed",
      "7",
      "--json",
      "--home",
      home.path,
    ]);
    assert.equal(run.code, 0, run.stderr);
    const results = JSON.parse(run.stdout) as Results;
    assert.equal(results.run.id, RUNS[agent]);
    const recorded = JSON.parse(
      await Deno.readTextFile(join(PROJECT_ROOT, FIXTURE, "runs", RUNS[agent], "results.json")),
    ) as Results;
    assert.deepEqual(verdicts(results), verdicts(recorded));
    if (expected) assert.deepEqual(verdicts(results), expected);
  }
});
