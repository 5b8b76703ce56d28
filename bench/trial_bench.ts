/**
 * The cost of a trial against the floor of Docker itself, measured in the same run: the median
 * wall time of an oracle trial on a trivial task (two containers: the agent's and the grader's)
 * and of a bare `docker run --rm IMAGE true`, interleaved, and their ratio. Run: `deno task bench`.
 *
 * @module
 */
import { oracleAgent } from "../src/agent/oracle.ts";
import { LogicalClock } from "../src/core/clock.ts";
import { sha256Hex } from "../src/core/hash.ts";
import { SplitMix64 } from "../src/core/rng.ts";
import { stageTask } from "../src/eval/trial/staged_task.ts";
import { runTrial } from "../src/eval/trial/trial.ts";
import { Docker } from "../src/engine/docker.ts";
import { storeSnapshot } from "../src/workspace/snapshot.ts";
import { DERIVED_LABEL } from "../src/engine/derived_image.ts";
import { DockerSandbox } from "../src/engine/docker_sandbox.ts";
import { openStore } from "../src/store/store.ts";
import { loadTask } from "../src/task/load_task.ts";
import { median } from "./_measure.ts";

const ROUNDS = 9;
const IMAGE = "verdict/busybox";
const docker = new Docker({ PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin" });
await docker.ping();
const staged = await stageTask(await loadTask("tests/fixtures/bench/trivial"));
const store = openStore(":memory:");
store.runs.create({ id: "bench", config: {}, createdAt: 0 });
const sandbox = new DockerSandbox(docker);
const workspaces = sandbox.derivedImages({ "verdict.run": "bench" });
storeSnapshot(store.blobs, staged.initial); // as the run does once per task

async function bareRun(): Promise<number> {
  const start = performance.now();
  const result = await docker.run(["run", "--rm", "--pull=never", IMAGE, "true"]);
  if (result.code !== 0) throw new Error(result.stderr);
  return performance.now() - start;
}

/** A trial's wall time to its verdict, and until its containers are removed too. */
async function trial(round: number): Promise<{ verdict: number; removed: number }> {
  const session = `bench-${round}`;
  store.runs.createSession({ id: session, run: "bench", task: staged.task.id, repeat: round });
  const start = performance.now();
  const { record, cleanup } = await runTrial({ run: "bench", session, staged, repeat: round }, {
    store,
    sandbox,
    images: workspaces,
    clock: new LogicalClock(),
    rng: new SplitMix64(round),
    agent: oracleAgent,
    signal: new AbortController().signal,
    owner: "bench",
  });
  const verdict = performance.now() - start;
  await cleanup; // off the trial's critical path, but not overlapped with the next measurement
  const removed = performance.now() - start;
  if (record.verdict !== "pass") throw new Error(`the trivial trial failed: ${record.reason}`);
  return { verdict, removed };
}

await bareRun(); // warm the engine's caches for both
// The first trial of a task also builds its two derived images; start from none to show that cost.
for (const tar of [staged.tar, staged.graderTar]) {
  const cached = await docker.text([
    "images",
    "--quiet",
    "--filter",
    `label=${DERIVED_LABEL}=${sha256Hex(tar)}`,
  ]);
  if (cached !== "") await docker.text(["image", "rm", "--force", ...new Set(cached.split("\n"))]);
}
const first = await trial(-1);
const bare: number[] = [];
const trials: number[] = [];
const withRemoval: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  bare.push(await bareRun());
  const { verdict, removed } = await trial(round);
  trials.push(verdict);
  withRemoval.push(removed);
}
store.close();
const ratio = median(trials) / median(bare);
console.log(
  `bare docker run --rm ${IMAGE} true: median ${median(bare).toFixed(0)} ms over ${ROUNDS}`,
);
console.log(
  `oracle trial on a trivial task:  median ${median(trials).toFixed(0)} ms over ${ROUNDS}`,
);
console.log(`ratio ${ratio.toFixed(2)} (target <= 2.0; a trial uses two containers)`);
console.log(
  `counting the removal of its containers too (the bare run includes its own): median ` +
    `${median(withRemoval).toFixed(0)} ms, ratio ${
      (median(withRemoval) / median(bare)).toFixed(2)
    }`,
);
console.log(
  `first trial of the task, building its workspace and grader images: ${
    first.verdict.toFixed(0)
  } ms (once per ` +
    `task and image, then cached by Docker)`,
);
