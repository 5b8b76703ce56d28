import assert from "node:assert/strict";
import { join } from "node:path";
import type { Results } from "../../../src/report/results.ts";
import { requireDocker } from "../../_docker.ts";
import { runVerdict, scratchDir } from "../../_verdict.ts";
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

/** The results of a run recorded in `home`. */
async function resultsOf(home: string, run: string): Promise<Results> {
  return JSON.parse(await Deno.readTextFile(join(home, "runs", run, "results.json"))) as Results;
}

// One check of every failure it reports: a cheat that passes, a canary that passes the untouched
// workspace, tests that test nothing, a task with no solution. The bundled suite's check (a step of
// .ci/run) shows tasks that check out, as this one shows each way a task does not.
Deno.test("tasks check runs the controls: exit-at-import and skip-all are caught on tasks they pass, a canary that passes the untouched workspace is refused, tests that test nothing and a missing solution are named", async () => {
  await requireDocker();
  await using home = await scratchDir("check-controls");
  const result = await runVerdict([
    "tasks",
    "check",
    "tests/fixtures/controls/exit-cheatable",
    "tests/fixtures/controls/skip-cheatable",
    "tests/fixtures/controls/canary-passes",
    "tests/fixtures/check",
    "tests/fixtures/no-solution",
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
  assert.equal(
    problemsOf("always-passes"),
    "the untouched workspace passes: the tests test nothing",
    out,
  );
  assert.match(out, /^always-passes\s+pass\s+pass\s+pass\s+PROBLEM$/m, out);
  // A task with no solution/ is named with how to add one, and left out of the oracle's run.
  assert.match(
    problemsOf("unsolved"),
    /^\S*no-solution\/unsolved has no solution\/ folder, which the oracle agent applies: add solution\/solve\.sh/,
  );
  assert.match(out, /^unsolved\s+-\s+fail\s+fail\s+PROBLEM$/m, out);
  const [oracleRun, nopRun] = /^0 of 5 tasks check out \(runs (\S+), (\S+)\)$/m.exec(out)!.slice(1);
  assert.deepEqual(
    (await resultsOf(home.path, oracleRun)).trials.map((t) => t.task).sort(),
    ["always-passes", "canary-passes", "exit-cheatable", "skip-cheatable"],
  );
  assert.equal((await resultsOf(home.path, nopRun)).trials.length, 5);

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
  const exitAtImport = await verdicts("exit-at-import");
  assert.equal(exitAtImport["exit-cheatable"], "pass");
  assert.equal(exitAtImport["skip-cheatable"], "fail");
  assert.equal(exitAtImport["canary-passes"], "fail");
  assert.equal((await verdicts("skip-all"))["skip-cheatable"], "pass");
  assert(Object.values(await verdicts("grader-hijack")).every((verdict) => verdict === "fail"));
});
