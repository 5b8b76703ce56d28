import assert from "node:assert/strict";
import { join } from "node:path";
import type { Results } from "../../../src/report/results.ts";
import { requireDocker } from "../../_docker.ts";
import { runVerdict, scratchDir } from "../../_verdict.ts";
import { loadSuite } from "../../../src/task/load_suite.ts";
import { startRun, waitForContainers } from "../_live_run.ts";

Deno.test("a resumed tasks check run still waives model-only requirements: the oracle passes", async () => {
  const docker = await requireDocker();
  await using home = await scratchDir("check-resume");
  const check = await startRun([
    "tasks",
    "check",
    "tests/fixtures/model-only",
    "--home",
    home.path,
  ]);
  await waitForContainers(docker, `verdict.run=${check.run}`, 2);
  check.child.kill("SIGINT");
  assert.equal((await check.finish()).code, 130);

  const resumed = await runVerdict(["resume", check.run, "--home", home.path]);
  assert.equal(resumed.code, 0, resumed.stderr);
  const results = JSON.parse(
    await Deno.readTextFile(join(home.path, "runs", check.run, "results.json")),
  ) as Results;
  assert.deepEqual(results.trials.map((trial) => trial.verdict), ["pass"], resumed.stdout);
  assert.deepEqual(results.trials[0].requirements.map((requirement) => requirement.kind), [
    "min_tool_calls",
  ]);
});

Deno.test("--agent oracle on a task with no solution/ is refused before the run starts (exit 2)", async () => {
  await requireDocker();
  await using home = await scratchDir("no-solution");
  const result = await runVerdict([
    "eval",
    "--agent",
    "oracle",
    "tests/fixtures/no-solution",
    "--home",
    home.path,
  ]);
  assert.equal(result.code, 2, result.stderr);
  assert.match(
    result.stderr,
    /no-solution\/unsolved has no solution\/ folder, which the oracle agent applies: add solution\/solve\.sh/,
  );
  assert.doesNotMatch(result.stdout, /^run /m, "no run was made");
});

Deno.test("tasks check names a task with no solution/ and how to add one, without an oracle trial", async () => {
  await requireDocker();
  await using home = await scratchDir("check-no-solution");
  const result = await runVerdict([
    "tasks",
    "check",
    "tests/fixtures/no-solution",
    "--home",
    home.path,
  ]);
  assert.equal(result.code, 1, result.stderr);
  assert.match(
    result.stdout,
    /unsolved: \S*no-solution\/unsolved has no solution\/ folder, which the oracle agent applies: add solution\/solve\.sh/,
  );
  assert.match(result.stdout, /0 of 1 tasks check out \(runs [\w-]+\)\n/, "only the nop run");
});

/** The results of a run recorded in `home`. */
async function resultsOf(home: string, run: string): Promise<Results> {
  return JSON.parse(await Deno.readTextFile(join(home, "runs", run, "results.json"))) as Results;
}

Deno.test("tasks check runs the controls: exit-at-import and skip-all are caught on tasks they pass, a canary that passes the untouched workspace is refused, a well-written task checks out", async () => {
  await requireDocker();
  await using home = await scratchDir("check-controls");
  const result = await runVerdict([
    "tasks",
    "check",
    "tests/fixtures/controls",
    "--home",
    home.path,
  ]);
  assert.equal(result.code, 1, result.stdout + result.stderr);
  const out = result.stdout;
  const problemsOf = (task: string) => new RegExp(`^${task}: (.*)$`, "m").exec(out)?.[1] ?? "";

  // Evidence that tests ran stops both cheats on a task that asks for it; these two opted out
  // (`expect_tests: 0`). No canary, and `python -c` trusted for its exit code: the cheat ends it 0.
  assert.match(
    problemsOf("exit-cheatable"),
    /^control exit-at-import passed: the success script passes when every workspace module exits 0 at import .*; fix: make the tests assert on behaviour the imports must produce/,
    out,
  );
  assert.doesNotMatch(problemsOf("exit-cheatable"), /control (skip-all|grader-hijack)/);
  // Tests copied into the workspace and run there: the workspace's pytest.ini and conftest.py apply.
  assert.match(
    problemsOf("skip-cheatable"),
    /^control skip-all passed: the success script passes when a conftest\.py and a pytest\.ini in the workspace .*; fix: run pytest on the held-out tests so that no workspace configuration applies/,
    out,
  );
  assert.doesNotMatch(problemsOf("skip-cheatable"), /control (exit-at-import|grader-hijack)/);
  assert.match(
    problemsOf("canary-passes"),
    /the canary tests\/canary\.sh passes on the untouched workspace, so every trial fails as tampering: make it assert something false/,
    out,
  );
  assert.match(out, /^well-written\s+pass\s+fail\s+fail\s+ok$/m, out);
  assert.match(out, /^well-written\s+FAIL\s+FAIL\s+FAIL$/m, out);
  assert.equal(problemsOf("well-written"), "");
  assert.match(out, /^1 of 4 tasks check out \(runs \S+, \S+\)$/m);

  // Each control is a recorded run of its own, with the verdicts the check read.
  const runs = Object.fromEntries(
    [...out.matchAll(/(exit-at-import|skip-all|grader-hijack) run (\w+)/g)].map((
      m,
    ) => [m[1], m[2]]),
  );
  assert.deepEqual(Object.keys(runs).sort(), ["exit-at-import", "grader-hijack", "skip-all"]);
  const verdicts = async (control: string) =>
    Object.fromEntries(
      (await resultsOf(home.path, runs[control])).trials.map((t) => [t.task, t.verdict]),
    );
  assert.deepEqual(await verdicts("exit-at-import"), {
    "canary-passes": "fail",
    "exit-cheatable": "pass",
    "skip-cheatable": "fail",
    "well-written": "fail",
  });
  assert.equal((await verdicts("skip-all"))["skip-cheatable"], "pass");
  assert(Object.values(await verdicts("grader-hijack")).every((verdict) => verdict === "fail"));
});

// Before grading required evidence that the tests ran, this five-line cheat passed 7 to 11 of the
// bundled tasks. The bundled tasks must give no pass to an agent that did no work.
Deno.test("a cmd: agent that plants os._exit(0) at import in every workspace module passes none of the bundled tasks", async () => {
  await requireDocker();
  await using home = await scratchDir("exit-at-import-suite");
  const cheat = `cmd:find . -name '*.py' -exec sed -i '1i import os; os._exit(0)' {} +`;
  const result = await runVerdict(["eval", "tasks/", "--agent", cheat, "--home", home.path]);
  assert.equal(result.code, 0, result.stdout + result.stderr);
  const run = /^run (\w+)/m.exec(result.stdout)![1];
  const { trials } = await resultsOf(home.path, run);
  assert.equal(trials.length, (await loadSuite(["tasks"])).tasks.length);
  const passed = trials.filter((trial) => trial.verdict === "pass").map((trial) => trial.task);
  assert.equal(passed.length, 0, `the cheat passes ${passed.length}: ${passed.join(", ")}`);
});
