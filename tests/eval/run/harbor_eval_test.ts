/**
 * Harbor tasks end to end through the CLI, on fixtures of our own (tests/fixtures/harbor/): built
 * offline from their Dockerfiles (or a prebuilt image), the whole container sealed, graded in a
 * fresh container by the reward its verifier writes. `tasks check` passes the honest tasks (the
 * oracle passes, nop and the controls fail) and fails a tampering fixture, whose "solution" is
 * the cheat; every tampering fixture's cheat is shown to fail, and to earn reward 1 as Harbor runs
 * it, in tests/eval/run/harbor_attacks_test.ts.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { requireDocker } from "../../_docker.ts";
import { copyTree, runVerdict, scratchDir } from "../../_verdict.ts";
import { runVerdictInProcess } from "../../cli/_in_process.ts";

const FIXTURES = "tests/fixtures/harbor";
// A Python task and a system one: the controls' cheats are Harbor's own, the same on every task.
const HONEST = ["python-bugfix", "system-tool"];
const TAMPERING = "tamper-plant-tests";

interface Trial {
  task: string;
  session: string;
  verdict: string;
  bucket: string;
  reason: string;
  reward?: number;
  changed_paths: number;
}

function runIdOf(stdout: string): string {
  return /^run (\S+):/m.exec(stdout)![1];
}

async function trialsOf(home: string, stdout: string): Promise<Map<string, Trial>> {
  const results = JSON.parse(
    await Deno.readTextFile(join(home, "runs", runIdOf(stdout), "results.json")),
  );
  return new Map((results.trials as Trial[]).map((trial) => [trial.task, trial]));
}

Deno.test("Harbor tasks: tasks check passes the honest ones (oracle reward 1, nop 0, the controls caught) and fails a tampering fixture; the container's changes are shown", async () => {
  await requireDocker();
  await using home = await scratchDir("harbor-check");
  const checked = await runVerdict([
    "tasks",
    "check",
    FIXTURES,
    ...[...HONEST, TAMPERING].flatMap((task) => ["--task", task]),
    "--concurrency",
    "2",
    "--home",
    home.path,
  ]);
  // The cheat is the tampering fixture's "solution": the oracle fails it, so it does not check out.
  assert.equal(checked.code, 1, checked.stdout + checked.stderr);
  for (const task of HONEST) assert.match(checked.stdout, new RegExp(`^${task}\\s.*\\bok$`, "m"));
  assert.match(checked.stdout, new RegExp(`^${TAMPERING}: the oracle fails: reward 0`, "m"));
  const [oracleRun, nopRun] = /\(runs (\S+), (\S+)\)/.exec(checked.stdout)!.slice(1);
  const trials = await trialsOf(home.path, `run ${oracleRun}:`);
  for (const task of HONEST) {
    const trial = trials.get(task)!;
    assert.equal(trial.verdict, "pass", `${task}: ${trial.reason}`);
    assert.equal(trial.reward, 1, task);
  }
  assert.equal(trials.get(TAMPERING)!.verdict, "fail");
  assert.equal(trials.get(TAMPERING)!.reward, 0);
  for (const [task, trial] of await trialsOf(home.path, `run ${nopRun}:`)) {
    assert.equal(trial.verdict, "fail", `nop on ${task}`);
    if (HONEST.includes(task)) assert.equal(trial.reward, 0, `nop on ${task}`);
  }

  // The system task's whole-container seal, as `show` prints it: a tool, a setting, a deletion.
  const shown = await runVerdictInProcess([
    "show",
    trials.get("system-tool")!.session,
    "--home",
    home.path,
  ]);
  assert.equal(shown.code, 0, shown.stderr);
  assert.match(shown.stdout, /added usr\/local\/bin\/greet/);
  assert.match(shown.stdout, /added etc\/greet\.conf/);
  assert.match(shown.stdout, /removed etc\/greet\.old/);
  assert.doesNotMatch(shown.stdout, /docker-init|\/verdict\/|solution/);
  assert.equal(trials.get("system-tool")!.changed_paths, 3);

  const stats = await runVerdictInProcess(["stats", oracleRun, "--home", home.path]);
  assert.match(stats.stdout, /reward: mean 0\.6667 over 3/);
  const verified = await runVerdictInProcess(["verify", oracleRun, "--home", home.path]);
  assert.equal(verified.code, 0, verified.stdout + verified.stderr);
});

// Each other form of environment, passed by the oracle in the fractional reward's first run.
const FORMS = ["build-context", "prebuilt-image", "tool-link"];

Deno.test("Harbor tasks: a build context, a prebuilt image and a tool link pass under the oracle; a fractional reward fails below the pass mark and passes at --pass-reward", async () => {
  await requireDocker();
  await using scratch = await scratchDir("harbor-fraction");
  const task = join(scratch.path, "fractional-reward");
  await copyTree(join(FIXTURES, "fractional-reward"), task);
  await Deno.writeTextFile(
    join(task, "solution", "solve.sh"),
    '#!/bin/bash\nfor name in a b c; do echo "$name" > "$name"; done\n',
  );
  // A build context of this test's own (the image is named by its content), so it is built here.
  const dockerfile = join(task, "environment", "Dockerfile");
  await Deno.writeTextFile(
    dockerfile,
    `${await Deno.readTextFile(dockerfile)}# ${scratch.path}\n`,
  );
  const home = join(scratch.path, "home");
  const strict = await runVerdict([
    "eval",
    task,
    ...FORMS.map((form) => join(FIXTURES, form)),
    "--agent",
    "oracle",
    "--concurrency",
    "2",
    "--home",
    home,
  ]);
  assert.equal(strict.code, 0, strict.stdout + strict.stderr);
  const image = /verdict-harbor\/fractional-reward:\S+/.exec(
    (await runVerdict(["tasks", "list", task])).stdout,
  )![0];
  const docker = await requireDocker();
  try {
    // Its build log is kept with the run that built it.
    const log = await Deno.readTextFile(
      join(home, "runs", runIdOf(strict.stdout), "builds", "fractional-reward.log"),
    );
    assert.match(log, /FROM verdict\/python:3\.11/);
    const strictTrials = await trialsOf(home, strict.stdout);
    for (const form of FORMS) {
      const trial = strictTrials.get(form)!;
      assert.equal(trial.verdict, "pass", `${form}: ${trial.reason}`);
      assert.equal(trial.reward, 1, form);
    }
    const failed = strictTrials.get("fractional-reward")!;
    assert.equal(failed.reward, 0.75);
    assert.equal(failed.verdict, "fail");
    assert.match(failed.reason, /reward 0\.75, below the pass mark 1/);

    const lenient = await runVerdict([
      "eval",
      task,
      "--agent",
      "oracle",
      "--pass-reward",
      "0.7",
      "--home",
      home,
    ]);
    assert.equal(lenient.code, 0, lenient.stdout + lenient.stderr);
    // Another pass mark is another experiment: a run of its own.
    assert.notEqual(runIdOf(lenient.stdout), runIdOf(strict.stdout));
    const passed = (await trialsOf(home, lenient.stdout)).get("fractional-reward")!;
    assert.equal(passed.verdict, "pass");
    assert.equal(passed.reward, 0.75);

    const bad = await runVerdict(["eval", task, "--pass-reward", "2", "--home", home]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--pass-reward 2 must be a fraction/);
  } finally {
    await docker.run(["image", "rm", image]); // this test's own build
  }
});

Deno.test("Harbor tasks: a missing base image and a compose file are refused by name before any run (exit 2)", async () => {
  await requireDocker();
  await using home = await scratchDir("harbor-refused");
  const missing = await runVerdict([
    "eval",
    "tests/fixtures/harbor-refused/missing-base",
    "--agent",
    "nop",
    "--home",
    home.path,
  ]);
  assert.equal(missing.code, 2, missing.stdout + missing.stderr);
  assert.match(missing.stderr, /missing-base\/environment\/Dockerfile/);
  assert.match(missing.stderr, /FROM \(line 1\)/);
  assert.match(missing.stderr, /base image verdict\/not-built-here:1\.0 is not in the local/);
  assert.match(missing.stderr, /docker load -i FILE/);
  const runs = await Array.fromAsync(Deno.readDir(join(home.path, "runs"))).catch(() => []);
  assert.deepEqual(runs, [], "nothing was recorded");

  const compose = await runVerdict([
    "eval",
    "tests/fixtures/harbor-refused/compose",
    "--home",
    home.path,
  ]);
  assert.equal(compose.code, 2, compose.stdout + compose.stderr);
  assert.match(compose.stderr, /docker-compose\.yaml/);
});

Deno.test("Harbor tasks: the loop agent works in the image's WORKDIR as root, and its run replays identically", async () => {
  await requireDocker();
  await using home = await scratchDir("harbor-loop");
  const evaluated = await runVerdict([
    "eval",
    join(FIXTURES, "system-tool"),
    join(FIXTURES, "python-bugfix"),
    "--home",
    home.path,
  ]);
  assert.equal(evaluated.code, 0, evaluated.stdout + evaluated.stderr);
  assert.match(evaluated.stdout, /2 of 2 trials: 2 passed/);
  const replayed = await runVerdictInProcess([
    "replay",
    runIdOf(evaluated.stdout),
    "--home",
    home.path,
  ]);
  assert.equal(replayed.code, 0, replayed.stdout + replayed.stderr);
  assert.match(replayed.stdout, /identical \(2 identical, 0 diverged/);
});

Deno.test("a bundled task exported as a Harbor task gets the same verdicts when loaded back: oracle passes, nop fails", async () => {
  await requireDocker();
  await using scratch = await scratchDir("harbor-roundtrip");
  const out = join(scratch.path, "exported");
  const exported = await runVerdict([
    "tasks",
    "export",
    "--format",
    "harbor",
    "--out",
    out,
    "tasks/fix-slugify",
  ]);
  assert.equal(exported.code, 0, exported.stdout + exported.stderr);
  const task = join(out, "fix-slugify");
  assert((await Deno.stat(join(task, "task.toml"))).isFile);
  // The same verdicts as the bundled task's own (tests/eval/run/bundled_suite_test.ts checks those).
  const home = join(scratch.path, "home");
  const harbor = await runVerdict([
    "eval",
    task,
    "--agent",
    "oracle",
    "--agent",
    "nop",
    "--json",
    "--home",
    home,
  ]);
  assert.equal(harbor.code, 0, harbor.stdout + harbor.stderr);
  const runs =
    (JSON.parse(harbor.stdout) as { runs: { run: { agent: string }; trials: Trial[] }[] })
      .runs;
  for (const [agent, verdict] of [["oracle", "pass"], ["nop", "fail"]]) {
    const [trial] = runs.find((run) => run.run.agent === agent)!.trials;
    assert.equal(trial.task, "fix-slugify");
    assert.equal(trial.verdict, verdict, `${agent} on the exported task: ${trial.reason}`);
    assert.equal(trial.reward, verdict === "pass" ? 1 : 0);
  }
});

Deno.test("a Harbor trial whose process and container died resumes from its whole-container checkpoint", async () => {
  const docker = await requireDocker();
  await using home = await scratchDir("harbor-resume");
  const crashed = await runVerdict([
    "eval",
    join(FIXTURES, "system-tool"),
    "--model",
    "scripted:crash=mid-tool@3",
    "--home",
    home.path,
  ]);
  assert.match(crashed.stderr, /crash knob/);
  const run = runIdOf(crashed.stdout);
  const left =
    (await docker.text(["ps", "--all", "--quiet", "--filter", `label=verdict.run=${run}`]))
      .split("\n").filter((id) => id !== "");
  assert(left.length > 0, "the crashed trial's containers are left for resume");
  await docker.run(["rm", "--force", ...left]);
  const resumed = await runVerdict(["resume", run, "--home", home.path]);
  assert.equal(resumed.code, 0, resumed.stdout + resumed.stderr);
  const trial = (await trialsOf(home.path, `run ${run}:`)).get("system-tool")!;
  assert.equal(trial.verdict, "pass", trial.reason);
  assert.equal(trial.changed_paths, 3);
});
