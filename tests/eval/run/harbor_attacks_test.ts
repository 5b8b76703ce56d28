/**
 * Harbor attacks end to end, in one oracle run: each fixture's "solution" leaves the bug and
 * attacks the grader instead, from the code under test (tests/fixtures/harbor_attacks/: killing
 * the verifier's shell, imitating its report, leaving a process behind, rewriting test.sh as bash
 * reads it, forcing pytest's exit status), from the container (the grader-hijack paths, a pytest
 * planted on PATH or in the working folder) or by planting the tests or the reward
 * (tests/fixtures/harbor/tamper-*). Under the oracle each fails (reward 0, tampering, or no reward
 * at all); run the way Harbor runs it, solve.sh then test.sh in one container, each earns reward 1,
 * so they are real. And installs that are not hijacks stay allowed: local packages installed with
 * `pip install .` and `pip install -e .` pass in the same run.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { rewardAsHarborGives } from "../_harbor_as_harbor.ts";
import { requireDocker } from "../../_docker.ts";
import { copyTree, runVerdict, scratchDir } from "../../_verdict.ts";

const ATTACKS = "tests/fixtures/harbor_attacks";
const TAMPERING = "tests/fixtures/harbor";

// How each attack must fail: as tampering (with the reason's words), or with reward 0.
const EXPECTED: Record<string, RegExp | 0> = {
  "kill-verifier": /^tampering: reward 1, but the verifier's shell was killed/,
  "imitate-report": 0,
  "leave-process": 0,
  "rewrite-test-sh": 0,
  "exit-zero-at-import": /^tampering: reward 1, but .*no pytest summary line/,
  "exit-zero-after-failures": /^tampering: reward 1, but pytest reported 2 failed/,
  "ld-preload": /^tampering: the agent changed \/etc\/ld\.so\.preload, the dynamic loader's/,
  "python-link-target": /^tampering: the agent changed \/usr\/bin\/python3\.11, a shell, interp/,
  "sitecustomize": /^tampering: the agent changed \/etc\/python3\.11\/sitecustomize\.py, an interp/,
  "pth-hook": /^tampering: the agent changed \/usr\/local\/lib\/python3\.11\/dist-packages\/zz-/,
  "pytest-main": /^tampering: the agent changed \/usr\/lib\/python3\/dist-packages\/pytest\/__m/,
  "root-pytest-ini": /^tampering: the agent changed \/pytest\.ini, test-runner configuration/,
  "root-conftest": /^tampering: the agent changed \/(conftest\.py|pytest\.ini), test-runner/,
  // A pytest planted first on PATH, or in the working folder, changes a grader-hijack path.
  "tamper-fake-runner":
    /^tampering: the agent changed \/usr\/local\/bin\/pytest, a shell, interpreter or test runner/,
  "tamper-shadow-module":
    /^tampering: the agent changed \/app\/pytest\.py, the test runner the grader imports/,
  "tamper-plant-tests": 0,
};
// The planted reward leaves the real verifier with none to write: an evaluator error.
const PLANT_REWARD = "tamper-plant-reward";
const LOCAL_PACKAGE = "local-package";

interface Trial {
  task: string;
  verdict: string;
  bucket: string;
  reason: string;
  reward?: number;
  success: { output: string } | null;
}

interface OracleRun {
  trials: Map<string, Trial>;
  /** Each task's image, as `tasks list` names it. */
  images: Map<string, string>;
}

let oracleRun: Promise<OracleRun> | undefined;

/**
 * One oracle run (one CLI process, two trials at a time) over every attack, every tampering
 * fixture and the local-package task; the tests below share it and the images it built.
 */
function attacksUnderOracle(): Promise<OracleRun> {
  oracleRun ??= runAttacks();
  return oracleRun;
}

async function runAttacks(): Promise<OracleRun> {
  await requireDocker();
  await using scratch = await scratchDir("harbor-attacks");
  const localPackage = await localPackageTask(scratch.path);
  const tampering = [...Object.keys(EXPECTED), PLANT_REWARD]
    .filter((task) => task.startsWith("tamper-"))
    .map((task) => join(TAMPERING, task));
  const paths = [ATTACKS, ...tampering, localPackage];
  const run = await runVerdict([
    "eval",
    ...paths,
    "--agent",
    "oracle",
    "--concurrency",
    "2",
    "--json",
    "--home",
    join(scratch.path, "home"),
  ]);
  // 3: the planted reward's trial is an evaluator error; every other trial got a verdict.
  assert.equal(run.code, 3, run.stderr);
  const results = JSON.parse(run.stdout);
  const listed = await runVerdict(["tasks", "list", ...paths]);
  assert.equal(listed.code, 0, listed.stderr);
  const images = new Map(
    [...listed.stdout.matchAll(/^(\S+)\s+\S+\s+(verdict-harbor\/\S+)/gm)].map((m) => [m[1], m[2]]),
  );
  return {
    trials: new Map((results.trials as Trial[]).map((trial) => [trial.task, trial])),
    images,
  };
}

/**
 * The local-package task in `dir`, with the pip, setuptools and wheel wheels its image installs
 * offline. Its image is named by its content, so it is built once and then reused.
 */
async function localPackageTask(dir: string): Promise<string> {
  const wheels = "/usr/share/python-wheels";
  const names = await Array.fromAsync(Deno.readDir(wheels)).then(
    (entries) => entries.map((entry) => entry.name),
    () => [] as string[],
  );
  const needed = ["pip", "setuptools", "wheel"].map((name) =>
    names.find((file) => file.startsWith(`${name}-`) && file.endsWith(".whl"))
  );
  assert(
    needed.every(Boolean),
    `${wheels} lacks pip, setuptools or wheel: apt-get install python3-pip-whl ` +
      "python3-setuptools-whl python3-wheel-whl (the task's image installs them offline)",
  );
  const task = join(dir, LOCAL_PACKAGE);
  await copyTree(`tests/fixtures/harbor_installs/${LOCAL_PACKAGE}`, task);
  await Deno.mkdir(join(task, "environment", "wheels"));
  for (const file of needed) {
    await Deno.copyFile(join(wheels, file!), join(task, "environment", "wheels", file!));
  }
  return task;
}

Deno.test("Harbor attacks: each attack and tampering fixture, as the oracle's solution, fails under Verdict (reward 0, tampering, or no reward)", async () => {
  const { trials } = await attacksUnderOracle();
  assert.deepEqual(
    [...trials.keys()].sort(),
    [...Object.keys(EXPECTED), PLANT_REWARD, LOCAL_PACKAGE].sort(),
  );
  for (const [task, expected] of Object.entries(EXPECTED)) {
    const trial = trials.get(task)!;
    assert.equal(trial.verdict, "fail", `${task} must fail: ${trial.reason}`);
    assert.equal(trial.bucket, "agent_failure", `${task}: ${trial.reason}`);
    if (expected === 0) assert.equal(trial.reward, 0, `${task}: ${trial.reason}`);
    else assert.match(trial.reason, expected, task);
  }
  const planted = trials.get(PLANT_REWARD)!;
  assert.equal(planted.verdict, "fail", `${PLANT_REWARD} must fail: ${planted.reason}`);
  assert.equal(planted.bucket, "evaluator_error");
  assert.match(planted.reason, /no reward/);
});

Deno.test("Harbor attacks: run the way Harbor runs them (solve.sh, then test.sh, in one container), every attack on the verifier earns reward 1", async () => {
  const docker = await requireDocker();
  const { images } = await attacksUnderOracle();
  // Imitating Verdict's old stdout report fools no one but that grader: Harbor reads the file.
  const real = [...Object.keys(EXPECTED), PLANT_REWARD].filter((task) => task !== "imitate-report");
  const queue = [...real];
  // Two at a time, as the oracle run went; each waits a second for a process left behind.
  await Promise.all([0, 1].map(async () => {
    for (let task = queue.shift(); task !== undefined; task = queue.shift()) {
      const image = images.get(task);
      assert(image, `tasks list names ${task}'s image`);
      const dir = join(Deno.cwd(), task.startsWith("tamper-") ? TAMPERING : ATTACKS, task);
      const { reward, stderr } = await rewardAsHarborGives(docker, image, dir);
      assert.equal(reward, "1", `${task}: ${stderr}`);
    }
  }));
});

Deno.test("Harbor tasks: local packages installed offline with pip install . and pip install -e . pass under the oracle", async () => {
  const trial = (await attacksUnderOracle()).trials.get(LOCAL_PACKAGE)!;
  assert.equal(trial.verdict, "pass", `${trial.bucket}: ${trial.reason}`);
  assert.equal(trial.reward, 1);
  // The grader imported both packages, the installed and the editable: without them nothing passes.
  assert.match(trial.success?.output ?? "", /\b2 passed\b/, trial.success?.output);
});
