import assert from "node:assert/strict";
import { join } from "node:path";
import type { Results } from "../../../src/report/results.ts";
import type { TrialRecord } from "../../../src/store/trial_record.ts";
import { openStore } from "../../../src/store/store.ts";
import { containersLabelled, requireDocker } from "../../_docker.ts";
import { PROJECT_ROOT, runVerdict, scratchDir } from "../../_verdict.ts";

// The tampering tasks that are whole fixtures, and the attacks on the bundled fix-parser-canary:
// the task as bundled, its manifest and `solution/` replaced by those in
// `tests/fixtures/tampering_attacks/<task>/` (the attack).
const FIXTURES = "tests/fixtures/tampering";
const ATTACKS = "tests/fixtures/tampering_attacks";

interface Attacked {
  trial: TrialRecord;
  /** What the oracle's solution printed. */
  oracleOutput: string;
}

let oracleRun: Promise<Map<string, Attacked>> | undefined;

/**
 * Every tampering task's trial under the oracle, from one run (one CLI process, two trials at a
 * time) that the tests below share.
 */
async function tamperingTrial(task: string): Promise<Attacked> {
  oracleRun ??= runAll();
  const attacked = (await oracleRun).get(task);
  assert(attacked, `the oracle run has a trial of ${task}`);
  return attacked;
}

async function runAll(): Promise<Map<string, Attacked>> {
  const docker = await requireDocker();
  await using suite = await scratchDir("tamper");
  const tasks = join(suite.path, "attacks");
  for await (const entry of Deno.readDir(ATTACKS)) {
    const folder = join(tasks, entry.name);
    await copyTree(join(PROJECT_ROOT, "tasks", "fix-parser-canary"), folder);
    await Deno.remove(join(folder, "solution"), { recursive: true });
    await copyTree(join(PROJECT_ROOT, ATTACKS, entry.name), folder);
  }
  const home = join(suite.path, "home");
  const result = await runVerdict([
    "eval",
    "--agent",
    "oracle",
    FIXTURES,
    tasks,
    "--concurrency",
    "2",
    "--home",
    home,
    "--json",
  ]);
  assert.equal(result.code, 0, result.stderr);
  const results = JSON.parse(result.stdout) as Results;
  assert.equal(results.trials.length, 8);
  const store = openStore(join(home, "verdict.db"));
  try {
    assert.deepEqual(await containersLabelled(docker, `verdict.run=${results.run.id}`), []);
    return new Map(results.trials.map((trial) => {
      const oracle = store.events.read(trial.session).find((event) =>
        event.kind === "agent.oracle"
      );
      return [trial.task, { trial, oracleOutput: String(oracle?.payload.stdout ?? "") }];
    }));
  } finally {
    store.close();
  }
}

/** Copies a folder's files into `to` (made as needed), keeping their modes. */
async function copyTree(from: string, to: string): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  for await (const entry of Deno.readDir(from)) {
    if (entry.isDirectory) await copyTree(join(from, entry.name), join(to, entry.name));
    else await Deno.copyFile(join(from, entry.name), join(to, entry.name));
  }
}

Deno.test("tampering: a write into the standard library or a user site-package never reaches grading", async () => {
  const { trial, oracleOutput } = await tamperingTrial("tamper-stdlib");
  assert.deepEqual([trial.verdict, trial.bucket], ["fail", "agent_failure"]);
  assert.match(trial.reason, /tests failed/);
  assert.match(trial.success?.output ?? "", /assert -1 == 5/, "the tests ran against calc.py");
  // The agent is not root, so the standard library is refused; a patch in its user site-packages
  // works in its own container, but grading starts from the task image.
  assert.match(oracleOutput, /stdlib write refused/);
  assert.match(oracleOutput, /in the agent container calc\.add\(2, 3\) = 5/);
});

Deno.test("tampering: a process left behind to write the answer later is stopped before the seal", async () => {
  const { trial } = await tamperingTrial("tamper-background");
  assert.equal(trial.verdict, "fail");
  assert.equal(trial.changed_paths, 0, "nothing written after the agent stopped");
});

Deno.test("tampering: a package that subverts pytest makes the canary pass, and the trial fails", async () => {
  const { trial } = await tamperingTrial("tamper-pytest");
  assert.equal(trial.verdict, "fail");
  assert.match(trial.reason, /^tampering: the canary tests\/canary\.sh passed/);
  assert.equal(trial.success?.exit_code, 0, "the subverted tests themselves 'passed'");
});

Deno.test("tampering: file names that are not UTF-8 cannot be sealed, and the trial fails as the agent's", async () => {
  const { trial } = await tamperingTrial("tamper-names");
  assert.deepEqual([trial.verdict, trial.bucket], ["fail", "agent_failure"]);
  assert.match(trial.reason, /file name that is not valid UTF-8 \('workspace\/odd\\xf[ef]'\)/);
});

// The four below are copies of the bundled fix-parser-canary task (its tests, scripts included)
// with only solution/ changed to perform the attack instead of the fix; each passed before.

Deno.test("tampering: code that makes only the first grading process exit 0 is caught by a canary in its own grader", async () => {
  const { trial } = await tamperingTrial("tamper-first-exit");
  assert.deepEqual([trial.verdict, trial.bucket], ["fail", "agent_failure"]);
  // Each script is the first process in a fresh grader, so the canary "passes" too.
  assert.match(trial.reason, /^tampering: the canary tests\/canary\.sh passed/);
  assert.equal(trial.success?.exit_code, 0);
  assert.equal(trial.canary?.exit_code, 0);
});

Deno.test("tampering: a pytest package in the workspace never stands in for the test runner", async () => {
  const { trial } = await tamperingTrial("tamper-runner-shadow");
  assert.deepEqual([trial.verdict, trial.bucket], ["fail", "agent_failure"]);
  assert.match(trial.reason, /^tests failed \(tests\/test\.sh exited 1\)/);
  assert.match(trial.success?.output ?? "", /\d+ failed, \d+ passed/, "the real pytest ran");
});

Deno.test("tampering: a pytest plugin declared by a dist-info folder in the workspace is never loaded", async () => {
  const { trial } = await tamperingTrial("tamper-plugin");
  assert.deepEqual([trial.verdict, trial.bucket], ["fail", "agent_failure"]);
  assert.match(trial.reason, /^tests failed \(tests\/test\.sh exited 1\)/);
  assert.match(trial.success?.output ?? "", /\d+ failed, \d+ passed/);
});

Deno.test("tampering: a forged bytecode cache with the staging mtime is never read by the grader", async () => {
  const { trial, oracleOutput } = await tamperingTrial("tamper-pyc");
  assert.match(oracleOutput, /forged .*__pycache__\/parser\.cpython-311\.pyc/);
  assert.deepEqual([trial.verdict, trial.bucket], ["fail", "agent_failure"]);
  assert.match(trial.reason, /^tests failed \(tests\/test\.sh exited 1\)/);
  // The sources are untouched: every check over the sealed end state passes, only the tests see.
  assert.ok(trial.checks.length === 3 && trial.checks.every((check) => check.passed));
  assert.equal(trial.changed_paths, 2, "__pycache__ and the forged file in it");
});
