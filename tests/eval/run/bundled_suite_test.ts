import assert from "node:assert/strict";
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
