import assert from "node:assert/strict";
import { join } from "node:path";
import type { Results } from "../../../src/report/results.ts";
import { containersLabelled, requireDocker } from "../../_docker.ts";
import { runVerdict, scratchDir } from "../../_verdict.ts";
import { startRun, waitForContainers } from "../_live_run.ts";

// Two trials one after the other: the run's containers live for several seconds.
// A seed of its own: other test files run this fixture at the same time, and a shared run id
// would let their containers into this file's label-only assertions.
const EXPERIMENT = [
  "eval",
  "--agent",
  "oracle",
  "tests/fixtures/slow",
  "--repeat",
  "2",
  "--seed",
  "22",
];

async function verdicts(home: string, run: string): Promise<string[]> {
  const results = JSON.parse(
    await Deno.readTextFile(join(home, "runs", run, "results.json")),
  ) as Results;
  return results.trials.map((trial) => trial.verdict);
}

Deno.test("two state folders run the same experiment at once: the one that ran it before sweeps nothing of the other's, both pass", async () => {
  const docker = await requireDocker();
  await using scratch = await scratchDir("owner");
  const [a, b] = [join(scratch.path, "a"), join(scratch.path, "b")];
  const before = await runVerdict([...EXPERIMENT, "--concurrency", "2", "--home", b]);
  assert.equal(before.code, 0, before.stderr);

  const live = await startRun([...EXPERIMENT, "--concurrency", "1", "--home", a]);
  await waitForContainers(docker, `verdict.run=${live.run}`);
  // B's run of the same experiment takes the next attempt id and sweeps leftovers on start.
  const again = await startRun([...EXPERIMENT, "--concurrency", "1", "--home", b]);
  assert.equal(again.run, `${live.run}-2`);
  const second = await again.finish();
  assert.equal(second.code, 0, second.stderr);
  assert.doesNotMatch(second.stdout, /removed containers left by killed runs/);
  assert.deepEqual(await verdicts(b, again.run), ["pass", "pass"], second.stdout);

  const finished = await live.finish();
  assert.equal(finished.code, 0, finished.stderr);
  assert.deepEqual(await verdicts(a, live.run), ["pass", "pass"], finished.stdout);
  assert.deepEqual(await containersLabelled(docker, `verdict.run=${live.run}`), []);
});

Deno.test("an interrupted run and its resume touch only their own state folder's containers", async () => {
  const docker = await requireDocker();
  await using scratch = await scratchDir("owner-resume");
  const [e, f] = [join(scratch.path, "e"), join(scratch.path, "f")];
  const live = await startRun([...EXPERIMENT, "--concurrency", "1", "--home", e]);
  // F runs the same experiment (the same run id, the same session ids), is interrupted, resumes.
  const other = await startRun([...EXPERIMENT, "--concurrency", "1", "--home", f]);
  assert.equal(other.run, live.run);
  await waitForContainers(docker, `verdict.run=${live.run}`, 4);
  other.child.kill("SIGINT");
  const interrupted = await other.finish();
  assert.equal(interrupted.code, 130, interrupted.stderr);
  const resumed = await runVerdict(["resume", other.run, "--home", f]);
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.deepEqual(await verdicts(f, other.run), ["pass", "pass"], resumed.stdout);

  const finished = await live.finish();
  assert.equal(finished.code, 0, finished.stderr);
  assert.deepEqual(await verdicts(e, live.run), ["pass", "pass"], finished.stdout);
});
