import assert from "node:assert/strict";
import { join } from "node:path";
import { runConfig } from "../../../src/eval/setup/run_identity.ts";
import { openStore } from "../../../src/store/store.ts";
import { loadSuite } from "../../../src/task/load_suite.ts";
import type { Results } from "../../../src/report/results.ts";
import { requireDocker } from "../../_docker.ts";
import { runVerdict, scratchDir } from "../../_verdict.ts";

const MODEL_ONLY = [
  "min_steps",
  "min_tool_calls",
  "min_compactions",
  "min_denied_calls",
  "resumed",
];

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

Deno.test("verdict tasks check tasks/ exits 0 on the bundled suite: the oracle passes each task, nop fails each as the agent's failure", async () => {
  await requireDocker();
  await using home = await scratchDir("check");
  const result = await runVerdict(["tasks", "check", "tasks/", "--home", home.path]);
  assert.equal(result.code, 0, result.stdout + result.stderr);
  const { tasks } = await loadSuite(["tasks"]);
  assert.match(
    result.stdout,
    new RegExp(`^${tasks.length} of ${tasks.length} tasks check out`, "m"),
  );
  // Its two runs, as recorded: every task once per agent, with the verdicts the check read.
  const store = openStore(join(home.path, "verdict.db"));
  try {
    const runs = store.runs.list().map((run) => runConfig(run));
    const trials = (agent: string) =>
      store.runs.trialSummaries(store.runs.list()[runs.findIndex((run) => run.agent === agent)].id);
    const ids = tasks.map((task) => task.id).sort();
    assert.deepEqual(trials("oracle").map((trial) => trial.task).sort(), ids);
    assert(trials("oracle").every((trial) => trial.verdict === "pass"));
    assert.deepEqual(
      [...new Set(trials("nop").map((trial) => `${trial.verdict} ${trial.bucket}`))],
      ["fail agent_failure"],
    );
    assert.equal(trials("nop").length, tasks.length);
  } finally {
    store.close();
  }
});

Deno.test("verdict tasks check exits 1 on a task whose tests pass the untouched workspace", async () => {
  await requireDocker();
  await using home = await scratchDir("check");
  const result = await runVerdict([
    "tasks",
    "check",
    "tests/fixtures/check",
    "--home",
    home.path,
  ]);
  assert.equal(result.code, 1, result.stdout + result.stderr);
  assert.match(
    result.stdout,
    /^always-passes: the untouched workspace passes: the tests test nothing$/m,
  );
  assert.match(result.stdout, /^0 of 1 tasks check out/m);
});

Deno.test("eval --agent oracle fails a task whose requirements only a model can meet, and passes the others", async () => {
  await requireDocker();
  await using home = await scratchDir("oracle");
  const suite = await loadSuite(["tasks"]);
  const modelOnly = (task: (typeof suite.tasks)[number]) =>
    Object.entries(task.manifest.requires).some(([key, value]) =>
      MODEL_ONLY.includes(key) && value !== 0 && value !== false
    );
  const picked = [...suite.tasks.filter(modelOnly), suite.tasks.find((task) => !modelOnly(task))!];
  const result = await runVerdict([
    "eval",
    ...picked.map((task) => task.dir),
    "--agent",
    "oracle",
    "--json",
    "--home",
    home.path,
  ]);
  assert.equal(result.code, 0, result.stderr);
  const results = JSON.parse(result.stdout) as Results;
  assert.equal(results.trials.length, picked.length);
  for (const task of picked) {
    const trial = results.trials.find((candidate) => candidate.task === task.id)!;
    if (modelOnly(task)) {
      assert.equal(trial.verdict, "fail", task.id);
      assert.match(trial.reason, /^requirement not met: /, task.id);
    } else assert.equal(trial.verdict, "pass", `${task.id}: ${trial.reason}`);
  }
  assert.match(result.stderr, /^run \w+: \d+ trials/, "the first line names the run id");
});
