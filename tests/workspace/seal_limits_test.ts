import assert from "node:assert/strict";
import type { Results } from "../../src/report/results.ts";
import type { TrialRecord } from "../../src/store/trial_record.ts";
import { AGENT_USER } from "../../src/engine/sandbox.ts";
import { startContainer } from "../../src/engine/container.ts";
import { containersLabelled, requireDocker } from "../_docker.ts";
import { runVerdict, scratchDir } from "../_verdict.ts";

/** Runs the oracle on one task of tests/fixtures/limits, whose solution breaks a limit. */
async function limitsTrial(task: string): Promise<{ code: number; trial: TrialRecord }> {
  const docker = await requireDocker();
  await using home = await scratchDir("limits");
  const result = await runVerdict([
    "eval",
    "--agent",
    "oracle",
    "tests/fixtures/limits",
    "--task",
    task,
    "--home",
    home.path,
    "--json",
  ]);
  const results = JSON.parse(result.stdout) as Results;
  assert.equal(results.trials.length, 1);
  assert.deepEqual(await containersLabelled(docker, `verdict.run=${results.run.id}`), []);
  return { code: result.code, trial: results.trials[0] };
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
  const started = performance.now();
  const { code, trial } = await limitsTrial("sparse-file");
  assert.equal(code, 0);
  assert.deepEqual([trial.verdict, trial.bucket], ["fail", "agent_failure"]);
  assert.match(
    trial.reason,
    /more than 1073741824 bytes \(limits\.max_workspace_bytes\) at \/workspace\/big\.bin \(2147483648 bytes\)/,
  );
  // Copying 2 GiB out took 91 s before; refused at its header it takes what a trial takes (a
  // loaded CI machine can make that several times the usual few seconds).
  assert.ok(performance.now() - started < 60_000);
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
