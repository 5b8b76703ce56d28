import assert from "node:assert/strict";
import { join } from "node:path";
import { oracleAgent } from "../../../src/agent/oracle.ts";
import { systemClock } from "../../../src/core/system_clock.ts";
import type { Experiment } from "../../../src/eval/setup/run_identity.ts";
import { claimRunId } from "../../../src/eval/run/run_claim.ts";
import { runPool } from "../../../src/eval/run/run_pool.ts";
import { tryLockRun } from "../../../src/eval/run/run_lock.ts";
import { stageTask } from "../../../src/eval/trial/staged_task.ts";
import { DockerSandbox } from "../../../src/engine/docker_sandbox.ts";
import { openStore } from "../../../src/store/store.ts";
import { loadSuite } from "../../../src/task/load_suite.ts";
import { containersLabelled, requireDocker } from "../../_docker.ts";
import { scratchDir } from "../../_verdict.ts";
import { waitForContainers } from "../_live_run.ts";

const EXPERIMENT: Experiment = {
  suite_digest: "d",
  tasks: ["a"],
  repeat: 1,
  agent: "nop",
  model: null,
  settings: null,
  seed: 0,
  harness_version: "0.1.0",
};

Deno.test("claiming a run id locks its folder: a second claim of the same experiment takes the next attempt", async () => {
  await using scratch = await scratchDir("claim");
  const runs = join(scratch.path, "runs");
  const store = openStore(join(scratch.path, "verdict.db"));
  try {
    const first = await claimRunId(store, EXPERIMENT, runs);
    const second = await claimRunId(store, EXPERIMENT, runs);
    assert.equal(first.attempt, 1);
    assert.deepEqual([second.id, second.attempt], [`${first.id}-2`, 2]);
    assert.equal(tryLockRun(join(runs, first.id)), undefined, "the first is locked");
    assert.equal(tryLockRun(join(runs, second.id)), undefined, "the second is locked");
    first.lock.release();
    second.lock.release();
  } finally {
    store.close();
  }
});

Deno.test("one pool worker's failure stops the others and waits for them before it is thrown", async () => {
  const docker = await requireDocker();
  await using scratch = await scratchDir("pool");
  const store = openStore(join(scratch.path, "verdict.db"));
  const run = `pool-${crypto.randomUUID().slice(0, 8)}`;
  try {
    const staged = await stageTask((await loadSuite(["tests/fixtures/slow"])).tasks[0]);
    store.runs.create({ id: run, config: {}, createdAt: 0 });
    const plans = [0, 1].map((repeat) => {
      const session = `${run}-${repeat}`;
      store.runs.createSession({ id: session, run, task: staged.task.id, repeat });
      return { run, session, staged, repeat };
    });
    const failure = new Error("the resume hook failed");
    const pool = runPool(
      plans,
      { seed: 0, concurrency: 2, owner: run },
      {
        sandbox: new DockerSandbox(docker),
        clock: systemClock,
        signal: new AbortController().signal,
        progress: { runStarted() {}, trialFinished() {} },
        agent: oracleAgent,
      },
      store,
      async (plan) => {
        if (plan.repeat === 1) return undefined;
        // Fail once the other trial is at work (its agent and grader containers are up).
        await waitForContainers(docker, `verdict.run=${run}`, 2);
        throw failure;
      },
    );
    await assert.rejects(pool, failure);
    assert.deepEqual(await containersLabelled(docker, `verdict.run=${run}`), []);
    const other = store.runs.sessions(run).find((session) => session.repeat === 1);
    assert.notEqual(other?.status, "finished", "the other trial was stopped");
  } finally {
    store.close();
  }
});
