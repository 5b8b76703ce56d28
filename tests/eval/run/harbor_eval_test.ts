/**
 * Harbor tasks end to end through the CLI, on fixtures of our own (tests/fixtures/harbor/): built
 * offline from their Dockerfiles (or a prebuilt image), the whole container sealed, graded in a
 * fresh container by the reward its verifier writes. The oracle passes the honest tasks and nop
 * fails them (`tasks check`); each tampering fixture, whose "solution" is the cheat, fails under Verdict although
 * it earns reward 1 when its verifier runs in the agent's own container, as Harbor runs it.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { rewardAsHarborGives } from "../_harbor_as_harbor.ts";
import { requireDocker } from "../../_docker.ts";
import { copyTree, runVerdict, scratchDir } from "../../_verdict.ts";

const FIXTURES = "tests/fixtures/harbor";
const HONEST = [
  "build-context",
  "fractional-reward",
  "prebuilt-image",
  "python-bugfix",
  "system-tool",
  "tool-link",
];
const TAMPERING = [
  "tamper-fake-runner",
  "tamper-plant-reward",
  "tamper-plant-tests",
  "tamper-shadow-module",
];

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

Deno.test("Harbor tasks: tasks check passes the honest ones (oracle reward 1, nop 0) and fails every tampering fixture; the container's changes are shown", async () => {
  await requireDocker();
  await using home = await scratchDir("harbor-check");
  const checked = await runVerdict(["tasks", "check", FIXTURES, "--home", home.path]);
  // The cheats are the tampering fixtures' "solutions": the oracle fails them, so they do not check out.
  assert.equal(checked.code, 1, checked.stdout + checked.stderr);
  for (const task of HONEST) assert.match(checked.stdout, new RegExp(`^${task}\\s.*\\bok$`, "m"));
  for (const task of TAMPERING) {
    assert.match(checked.stdout, new RegExp(`^${task}: the oracle fails: `, "m"), task);
  }
  const [oracleRun, nopRun] = /\(runs (\S+), (\S+)\)/.exec(checked.stdout)!.slice(1);
  const trials = await trialsOf(home.path, `run ${oracleRun}:`);
  for (const task of HONEST) {
    const trial = trials.get(task)!;
    assert.equal(trial.verdict, "pass", `${task}: ${trial.reason}`);
    assert.equal(trial.reward, 1, task);
  }
  for (const task of TAMPERING) {
    assert.equal(
      trials.get(task)!.verdict,
      "fail",
      `${task} must fail: ${trials.get(task)!.reason}`,
    );
  }
  // A pytest planted first on PATH, or in the working folder, changes a grader-hijack path.
  assert.match(
    trials.get("tamper-fake-runner")!.reason,
    /^tampering: the agent changed \/usr\/local\/bin\/pytest, a shell, interpreter or test runner/,
  );
  assert.match(
    trials.get("tamper-shadow-module")!.reason,
    /^tampering: the agent changed \/app\/pytest\.py, the test runner the grader imports/,
  );
  assert.equal(trials.get("tamper-plant-tests")!.reward, 0);
  // The planted reward leaves the real verifier with none to write: an evaluator error.
  assert.equal(trials.get("tamper-plant-reward")!.bucket, "evaluator_error");
  assert.match(trials.get("tamper-plant-reward")!.reason, /no reward/);
  for (const [task, trial] of await trialsOf(home.path, `run ${nopRun}:`)) {
    assert.equal(trial.verdict, "fail", `nop on ${task}`);
    if (HONEST.includes(task)) assert.equal(trial.reward, 0, `nop on ${task}`);
  }

  // The system task's whole-container seal, as `show` prints it: a tool, a setting, a deletion.
  const shown = await runVerdict(["show", trials.get("system-tool")!.session, "--home", home.path]);
  assert.equal(shown.code, 0, shown.stderr);
  assert.match(shown.stdout, /added usr\/local\/bin\/greet/);
  assert.match(shown.stdout, /added etc\/greet\.conf/);
  assert.match(shown.stdout, /removed etc\/greet\.old/);
  assert.doesNotMatch(shown.stdout, /docker-init|\/verdict\/|solution/);
  assert.equal(trials.get("system-tool")!.changed_paths, 3);

  const stats = await runVerdict(["stats", oracleRun, "--home", home.path]);
  assert.match(stats.stdout, /reward: mean 0\.8571 over 7/);
  const verified = await runVerdict(["verify", oracleRun, "--home", home.path]);
  assert.equal(verified.code, 0, verified.stdout + verified.stderr);
});

Deno.test("Harbor tasks: each tampering fixture's cheat earns reward 1 when the verifier runs in the agent's own container, as Harbor runs it", async () => {
  const docker = await requireDocker();
  const listed = await runVerdict(["tasks", "list", FIXTURES]);
  assert.equal(listed.code, 0, listed.stderr);
  for (const task of TAMPERING) {
    const image = new RegExp(`^${task}\\s+\\S+\\s+(\\S+)`, "m").exec(listed.stdout)?.[1];
    assert(image, `tasks list names ${task}'s image:\n${listed.stdout}`);
    assert(
      await docker.hasImage(image),
      `${image} is built by the oracle test above: run the file`,
    );
    const { reward, stderr } = await rewardAsHarborGives(
      docker,
      image,
      join(Deno.cwd(), FIXTURES, task),
    );
    assert.equal(reward, "1", `${task}: ${stderr}`);
  }
});

Deno.test("Harbor tasks: a fractional reward fails below the pass mark and passes at --pass-reward", async () => {
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
  const strict = await runVerdict(["eval", task, "--agent", "oracle", "--home", home]);
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
    const failed = (await trialsOf(home, strict.stdout)).get("fractional-reward")!;
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
  const replayed = await runVerdict(["replay", runIdOf(evaluated.stdout), "--home", home.path]);
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
  for (const [agent, verdict] of [["oracle", "pass"], ["nop", "fail"]]) {
    const harbor = await runVerdict(["eval", task, "--agent", agent, "--home", home]);
    assert.equal(harbor.code, 0, harbor.stdout + harbor.stderr);
    const trial = (await trialsOf(home, harbor.stdout)).get("fix-slugify")!;
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
