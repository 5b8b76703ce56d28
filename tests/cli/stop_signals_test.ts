import assert from "node:assert/strict";
import { join } from "node:path";
import type { Results } from "../../src/report/results.ts";
import { containersLabelled, requireDocker } from "../_docker.ts";
import { runVerdict, scratchDir } from "../_verdict.ts";
import { startRun, waitForContainers } from "../eval/_live_run.ts";

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
  "21",
];

async function results(home: string, run: string): Promise<Results> {
  return JSON.parse(await Deno.readTextFile(join(home, "runs", run, "results.json"))) as Results;
}

Deno.test("SIGTERM stops the run like Ctrl-C: containers removed, summary printed, exit 143, resumable", async () => {
  const docker = await requireDocker();
  await using home = await scratchDir("sigterm");
  const live = await startRun([...EXPERIMENT, "--concurrency", "2", "--home", home.path]);
  await waitForContainers(docker, `verdict.run=${live.run}`, 2);
  live.child.kill("SIGTERM");
  const { code, stdout, stderr } = await live.finish();
  assert.equal(code, 143, stderr);
  assert.match(stderr, /terminated \(SIGTERM\): stopping the trials/);
  assert.match(stdout, /interrupted: 0 of 2 trials/);
  assert.deepEqual(await containersLabelled(docker, `verdict.run=${live.run}`), []);
  assert.equal((await results(home.path, live.run)).run.status, "interrupted");

  const resumed = await runVerdict(["resume", live.run, "--home", home.path]);
  assert.equal(resumed.code, 0, resumed.stderr);
  const trials = (await results(home.path, live.run)).trials;
  assert.deepEqual(trials.map((trial) => trial.verdict), ["pass", "pass"]);
});

Deno.test("a closed stdout pipe stops the run as an interrupt: no stack trace, containers removed, exit 130", async () => {
  const docker = await requireDocker();
  await using home = await scratchDir("pipe");
  // `verdict eval | head -1`: the reader takes the first line and goes away.
  const live = await startRun([...EXPERIMENT, "--concurrency", "1", "--home", home.path]);
  await live.closeStdout();
  const { code, stderr } = await live.finish();
  assert.equal(code, 130, stderr);
  assert.match(stderr, /stdout was closed: stopping the trials/);
  assert.doesNotMatch(stderr, /BrokenPipe|internal error|\n\s+at /);
  assert.deepEqual(await containersLabelled(docker, `verdict.run=${live.run}`), []);
  const record = await results(home.path, live.run);
  assert.equal(record.run.status, "interrupted");
  // The closed pipe is found by the first write after it: the line of the first finished trial,
  // which is kept; the second trial never starts.
  assert.deepEqual(
    record.trials.map((trial) => trial.verdict),
    ["pass"],
    "finished trials are kept",
  );
});
