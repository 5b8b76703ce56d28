import assert from "node:assert/strict";
import { join } from "node:path";
import type { Results } from "../../src/report/results.ts";
import { requireDocker } from "../_docker.ts";
import { runVerdict, scratchDir } from "../_verdict.ts";
import { startRun, waitForContainers } from "./_live_run.ts";

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
