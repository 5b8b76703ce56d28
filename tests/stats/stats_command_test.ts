import assert from "node:assert/strict";
import { runStats } from "../../src/stats/run_stats.ts";
import { scratchDir } from "../_verdict.ts";
import { runVerdictInProcess } from "../cli/_in_process.ts";
import { syntheticRecord, writeRun } from "../_synthetic_runs.ts";

Deno.test("run statistics: per task and overall, pass@k and pass^k, flaky, spreads, buckets", () => {
  const trials = [
    syntheticRecord("s1", "a", 0, "pass"),
    syntheticRecord("s2", "a", 1, "fail"),
    syntheticRecord("s3", "a", 2, "pass"),
    syntheticRecord("s4", "b", 0, "pass"),
    syntheticRecord("s5", "b", 1, "pass"),
    syntheticRecord("s6", "b", 2, "pass"),
  ];
  const stats = runStats(trials);
  assert.deepEqual(stats.tasks.map((task) => [task.task, task.n, task.passes, task.flaky]), [[
    "a",
    3,
    2,
    true,
  ], ["b", 3, 3, false]]);
  assert.equal(stats.overall.pass_rate, 5 / 6);
  assert.deepEqual(Object.keys(stats.overall.pass_at_k), ["1", "2", "3"]);
  assert.equal(stats.tasks[0].pass_at_k["2"], 1, "a: 2 of 3 pass, any 2 drawn include a pass");
  assert.equal(
    stats.tasks[0].pass_hat_k["2"],
    1 / 3,
    "a: both of 2 drawn pass with chance C(2,2)/C(3,2)",
  );
  assert.equal(stats.overall.pass_hat_k["3"], (0 + 1) / 2);
  assert.deepEqual(stats.overall.flaky, ["a"]);
  assert.deepEqual(stats.overall.buckets, {
    agent_failure: { count: 1, reasons: { "tests failed (tests/test.sh exited 1)": 1 } },
  });
  assert.equal(stats.overall.cost_usd.total, 0.075);
  assert.deepEqual([stats.overall.steps.median, stats.overall.steps.p95], [6, 7]);
  const unknown = runStats([...trials, {
    ...syntheticRecord("s7", "c", 0, "pass"),
    cost_usd: null,
  }]);
  assert.deepEqual(
    unknown.overall.cost_usd,
    { median: null, p95: null, total: null },
    "unknown stays unknown",
  );
});

Deno.test("verdict stats prints tables and --json with the fields of SPEC section 8; several runs side by side", async () => {
  await using home = await scratchDir("stats");
  await writeRun(home.path, "aaaa1111aaaa", [["fix", 0, "pass"], ["fix", 1, "fail"], [
    "add",
    0,
    "pass",
  ], ["add", 1, "pass"]]);
  await writeRun(home.path, "bbbb2222bbbb", [["fix", 0, "pass"], ["fix", 1, "pass"], [
    "add",
    0,
    "fail",
  ], ["add", 1, "pass"]]);
  const json = await runVerdictInProcess(["stats", "aaaa1111aaaa", "--json", "--home", home.path]);
  assert.equal(json.code, 0, json.stderr);
  const stats = JSON.parse(json.stdout);
  assert.deepEqual(Object.keys(stats).sort(), ["overall", "run", "tasks"]);
  for (const group of [stats.overall, ...stats.tasks]) {
    for (
      const field of ["n", "passes", "pass_rate", "ci_low", "ci_high", "pass_at_k", "pass_hat_k"]
    ) assert.ok(field in group, field);
  }
  assert.equal(stats.overall.task, undefined);
  assert.equal(stats.tasks[0].task, "add");
  assert.equal(stats.overall.pass_rate, 0.75, "a fraction, not percent");
  const text = await runVerdictInProcess(["stats", "aaaa1111aaaa", "--home", home.path]);
  assert.match(
    text.stdout,
    /run aaaa1111aaaa \(loop, scripted\): 3 of 4 passed, 75\.0% \[30\.1%, 95\.4%\]/,
  );
  assert.match(text.stdout, /fix +2 +1 +50\.0% \[9\.5%, 90\.5%\].*yes/);
  const both = await runVerdictInProcess([
    "stats",
    "aaaa1111aaaa",
    "bbbb2222bbbb",
    "--home",
    home.path,
  ]);
  assert.match(both.stdout, /task +aaaa1111aaaa +bbbb2222bbbb/);
  assert.match(both.stdout, /overall +75\.0% \[30\.1%, 95\.4%\] +75\.0%/);
  const many = JSON.parse(
    (await runVerdictInProcess([
      "stats",
      "aaaa1111aaaa",
      "bbbb2222bbbb",
      "--json",
      "--home",
      home.path,
    ]))
      .stdout,
  );
  assert.deepEqual(many.runs.map((run: { run: string }) => run.run), [
    "aaaa1111aaaa",
    "bbbb2222bbbb",
  ]);
});
