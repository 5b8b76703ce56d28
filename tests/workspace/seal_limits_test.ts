import assert from "node:assert/strict";
import type { Results } from "../../src/report/results.ts";
import type { TrialRecord } from "../../src/store/trial_record.ts";
import { AGENT_USER } from "../../src/engine/sandbox.ts";
import { startContainer } from "../../src/engine/container.ts";
import { containersLabelled, requireDocker } from "../_docker.ts";
import { runVerdict, scratchDir } from "../_verdict.ts";

let oracleRun: Promise<{ code: number; trials: Map<string, TrialRecord> }> | undefined;

/**
 * The oracle's trial of one task of tests/fixtures/limits, whose solution breaks a limit: every
 * task's from one run (one CLI process, two trials at a time) that the tests below share.
 */
async function limitsTrial(task: string): Promise<{ code: number; trial: TrialRecord }> {
  oracleRun ??= runAll();
  const { code, trials } = await oracleRun;
  return { code, trial: trials.get(task)! };
}

async function runAll(): Promise<{ code: number; trials: Map<string, TrialRecord> }> {
  const docker = await requireDocker();
  await using home = await scratchDir("limits");
  const result = await runVerdict([
    "eval",
    "--agent",
    "oracle",
    "tests/fixtures/limits",
    "--concurrency",
    "2",
    "--home",
    home.path,
    "--json",
  ]);
  const results = JSON.parse(result.stdout) as Results;
  assert.equal(results.trials.length, 4);
  assert.deepEqual(await containersLabelled(docker, `verdict.run=${results.run.id}`), []);
  return {
    code: result.code,
    trials: new Map(results.trials.map((trial) => [trial.task, trial])),
  };
}

Deno.test("seal limits: more entries than limits.max_workspace_files fail the trial as the agent's", async () => {
  const { code, trial } = await limitsTrial("limit-files");
  assert.equal(code, 0);
  assert.deepEqual([trial.verdict, trial.bucket], ["fail", "agent_failure"]);
  assert.match(
    trial.reason,
    /more than 20 files, folders and links \(limits\.max_workspace_files\)/,
  );
  assert.equal(trial.end_state_root, null, "nothing was sealed");
});

Deno.test("seal limits: a 2 GiB sparse file is refused from its header, as the agent's failure", async () => {
  const { code, trial } = await limitsTrial("sparse-file");
  assert.equal(code, 0);
  assert.deepEqual([trial.verdict, trial.bucket], ["fail", "agent_failure"]);
  assert.match(
    trial.reason,
    /more than 1073741824 bytes \(limits\.max_workspace_bytes\) at \/workspace\/big\.bin \(2147483648 bytes\)/,
  );
  // Copying 2 GiB out took 91 s before; refused at its header it takes what a trial takes (a
  // loaded CI machine can make that several times the usual few seconds).
  assert.ok(trial.duration_ms < 60_000, `the trial took ${trial.duration_ms} ms`);
});

Deno.test("seal limits: a 9 GiB sparse file, its size in a PAX record, is refused the same way", async () => {
  const { code, trial } = await limitsTrial("sparse-file-9g");
  assert.equal(code, 0);
  assert.deepEqual([trial.verdict, trial.bucket], ["fail", "agent_failure"]);
  assert.match(trial.reason, /at \/workspace\/big\.bin \(9663676416 bytes\)/);
});

Deno.test("seal limits: a path about 6 KB deep fails the trial naming it, never silently dropped", async () => {
  const { code, trial } = await limitsTrial("deep-path");
  assert.equal(code, 0);
  assert.deepEqual([trial.verdict, trial.bucket], ["fail", "agent_failure"]);
  assert.match(
    trial.reason,
    /path too deep to seal \(\/workspace\/a\/d{10,}\.\.\.d+\/d+, \d{4} bytes; at most 3072\)/,
  );
});

Deno.test("seal limits: /tmp is a size-limited tmpfs, so a large write there fails", async () => {
  const docker = await requireDocker();
  const container = await startContainer(docker, {
    image: "verdict/busybox",
    workdir: "/workspace",
    network: "none",
    labels: { "verdict.test": "seal_limits_test" },
    user: AGENT_USER,
  });
  try {
    const result = await container.exec(
      'dd if=/dev/zero of=/tmp/big bs=1M count=600 2>&1; echo "exit $?"; ' +
        "touch /tmp/small && ls -ld /tmp",
      { timeoutMs: 60_000 },
    );
    assert.match(result.stdout, /No space left on device/);
    assert.doesNotMatch(result.stdout, /exit 0/);
    assert.match(result.stdout, /^drwxrwxrwt/m, "still writable by anyone, sticky");
  } finally {
    await container.remove();
  }
});
