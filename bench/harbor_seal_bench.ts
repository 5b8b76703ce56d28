/**
 * What a Harbor task's grading adds to a trial, against the floor of Docker itself measured in the
 * same run: the whole-container seal (`docker diff`, what the agent left killed and the changes
 * copied out in one exec, stored)
 * plus grading in the fresh grader (deletions and shadowed commands, the changes copied in,
 * `bash /tests/test.sh`, the reward read back), against a bare `docker run --rm IMAGE true`,
 * interleaved, medians and their ratio. The task is the system fixture (a tool in
 * `/usr/local/bin`, a file in `/etc` added, one removed), solved by its oracle before the clock
 * starts. The grader starts while the agent works in a real trial, so its start is not counted.
 * Run: `deno task bench`.
 *
 * @module
 */
import { oracleAgent } from "../src/agent/oracle.ts";
import { SplitMix64 } from "../src/core/rng.ts";
import { readyHarborImages } from "../src/eval/setup/harbor_images.ts";
import { stageTask } from "../src/eval/trial/staged_task.ts";
import { trialContainerSpec } from "../src/eval/trial/trial_scope.ts";
import { gradeHarbor } from "../src/grading/harbor_grade.ts";
import { sealContainer } from "../src/workspace/container_seal.ts";
import { Docker } from "../src/engine/docker.ts";
import { DockerSandbox } from "../src/engine/docker_sandbox.ts";
import { storeSnapshot } from "../src/workspace/snapshot.ts";
import { openStore } from "../src/store/store.ts";
import { loadHarborTask } from "../src/task/harbor_task.ts";
import { median } from "./_measure.ts";

const ROUNDS = 7;
const docker = new Docker({ PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin" });
await docker.ping();
const sandbox = new DockerSandbox(docker);
const [{ task }] = await readyHarborImages(
  [await loadHarborTask("tests/fixtures/harbor/system-tool")],
  sandbox,
);
const staged = await stageTask(task);
const store = openStore(":memory:");
const images = sandbox.derivedImages({ "verdict.run": "bench-harbor" });
const graderImage = await images.imageFor(task.manifest.image, staged.graderTar);
const plan = { run: "bench-harbor", session: "s", staged, repeat: 0 };

async function bareRun(): Promise<number> {
  const start = performance.now();
  const result = await docker.run(["run", "--rm", "--pull=never", task.manifest.image, "true"]);
  if (result.code !== 0) throw new Error(result.stderr);
  return performance.now() - start;
}

async function sealAndGrade(round: number): Promise<number> {
  const agent = await sandbox.start(trialContainerSpec(plan, "bench", "agent"));
  const grader = await sandbox.start({
    ...trialContainerSpec(plan, "bench", "grader"),
    image: graderImage,
  });
  try {
    await oracleAgent.run({
      task,
      session: `s${round}`,
      container: agent,
      record: () => {},
      storeBlob: (text) => store.blobs.putText(text),
      snapshot: () => Promise.resolve(""),
      rng: new SplitMix64(round),
      timeoutMs: 60_000,
      resumed: false,
      signal: new AbortController().signal,
    });
    const start = performance.now();
    const { sealed } = await sealContainer(agent);
    storeSnapshot(store.blobs, sealed);
    const graded = await gradeHarbor({
      harbor: task.harbor!,
      workdir: task.manifest.workdir,
      blobs: store.blobs,
      final: sealed,
      tests: staged.tests,
      grader,
      passReward: 1,
    });
    const elapsed = performance.now() - start;
    if (graded.verdict !== "pass") {
      throw new Error(`the system task failed: ${graded.reason}\n${graded.success?.output}`);
    }
    return elapsed;
  } finally {
    await Promise.all([agent.remove(), grader.remove()]);
  }
}

await bareRun(); // warm the image's layers
const bare: number[] = [];
const graded: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  bare.push(await bareRun());
  graded.push(await sealAndGrade(round));
}
const floor = median(bare);
const added = median(graded);
console.log(
  `harbor seal+grade: bare docker run median ${floor.toFixed(0)} ms; whole-container seal plus ` +
    `grading median ${added.toFixed(0)} ms; ratio ${(added / floor).toFixed(2)}x ` +
    `(${ROUNDS} rounds, target at most 1.5x)`,
);
store.close();
