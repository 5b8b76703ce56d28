import assert from "node:assert/strict";
import { join } from "node:path";
import { runConfig } from "../../../src/eval/setup/run_identity.ts";
import { openStore } from "../../../src/store/store.ts";
import { loadSuite } from "../../../src/task/load_suite.ts";
import type { Results } from "../../../src/report/results.ts";
import { requireDocker } from "../../_docker.ts";
import { runVerdict, scratchDir } from "../../_verdict.ts";

Deno.test("the bundled suite is real: 16+ tasks in 6+ categories, each with a solution", async () => {
  const suite = await loadSuite(["tasks"]);
  assert.ok(suite.tasks.length >= 16, `${suite.tasks.length} tasks`);
  const categories = new Set(suite.tasks.map((task) => task.manifest.category));
  assert.ok(categories.size >= 6, [...categories].join(", "));
  assert.ok(suite.tasks.every((task) => task.hasSolution));
  assert.ok(suite.tasks.filter((task) => task.manifest.image === "verdict/busybox").length >= 2);
  assert.ok(suite.tasks.some((task) => task.manifest.success.canary !== undefined), "a canary");
  assert.ok(suite.tasks.some((task) => (task.manifest.docs ?? []).length > 0), "a docs task");
  assert.ok(
    suite.tasks.some((task) =>
      task.manifest.checks.some((check) => check.kind === "files_unchanged")
    ),
  );
  assert.ok(
    suite.tasks.some((task) =>
      task.manifest.checks.some((check) => check.kind === "changed_paths_within")
    ),
  );
});

// The one run of the whole bundled suite in the test suite: every other test uses one to three
// tasks. Its five recorded runs back every claim about the bundled tasks as data.
Deno.test("verdict tasks check tasks/ exits 0 on the bundled suite: the oracle passes each task, nop fails each as the agent's failure, no control passes any", async () => {
  await requireDocker();
  await using home = await scratchDir("check");
  const result = await runVerdict(["tasks", "check", "tasks/", "--home", home.path]);
  assert.equal(result.code, 0, result.stdout + result.stderr);
  const { tasks } = await loadSuite(["tasks"]);
  const ids = tasks.map((task) => task.id).sort();
  assert.match(
    result.stdout,
    new RegExp(`^${tasks.length} of ${tasks.length} tasks check out`, "m"),
  );
  // A task that checks out, as the tables show it: the oracle passes, nop and the untouched
  // workspace fail; every control that had anything to cheat with fails.
  assert.match(result.stdout, /^shell-count-errors\s+pass\s+fail\s+fail\s+ok$/m);
  assert.match(result.stdout, /^fix-slugify\s+FAIL\s+FAIL\s+FAIL$/m);
  // Its runs, as recorded: every task once per agent, with the verdicts the check read.
  const store = openStore(join(home.path, "verdict.db"));
  try {
    const trials = (agent: string) => {
      const run = store.runs.list().find((run) => runConfig(run).agent === agent);
      assert.ok(run, `a run of ${agent}`);
      return store.runs.trialSummaries(run.id);
    };
    assert.deepEqual(trials("oracle").map((trial) => trial.task).sort(), ids);
    assert(trials("oracle").every((trial) => trial.verdict === "pass"));
    assert.deepEqual(
      [...new Set(trials("nop").map((trial) => `${trial.verdict} ${trial.bucket}`))],
      ["fail agent_failure"],
    );
    assert.equal(trials("nop").length, tasks.length);
    // Before grading required evidence that the tests ran, planting `import os; os._exit(0)` at
    // the top of every workspace module passed 7 to 11 of the bundled tasks: no generic cheat
    // passes any now.
    for (const control of ["exit-at-import", "skip-all", "grader-hijack"]) {
      const ran = trials(`control:${control}`);
      const passed = ran.filter((trial) => trial.verdict !== "fail").map((trial) => trial.task);
      assert.deepEqual(passed, [], `${control} passes ${passed.join(", ")}`);
      assert.ok(ran.length > 0, control);
    }
  } finally {
    store.close();
  }
});

Deno.test("eval --agent oracle fails a task whose requirements only a model can meet, and passes the others", async () => {
  await requireDocker();
  await using home = await scratchDir("oracle");
  const result = await runVerdict([
    "eval",
    "tests/fixtures/model-only",
    "tests/fixtures/bench",
    "--agent",
    "oracle",
    "--json",
    "--home",
    home.path,
  ]);
  assert.equal(result.code, 0, result.stderr);
  const results = JSON.parse(result.stdout) as Results;
  const verdicts = Object.fromEntries(
    results.trials.map((trial) => [trial.task, `${trial.verdict}: ${trial.reason}`]),
  );
  assert.deepEqual(Object.keys(verdicts).sort(), ["needs-a-model", "trivial"]);
  assert.equal(verdicts["needs-a-model"], "fail: requirement not met: min_tool_calls 1: got 0");
  assert.match(verdicts.trivial, /^pass/);
  assert.match(result.stderr, /^run \w+: \d+ trials/, "the first line names the run id");
});
