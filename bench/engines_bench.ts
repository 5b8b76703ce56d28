/**
 * One run over two Docker engines against the same run on one (issue 32): the oracle over the
 * bundled Verdict tasks at 2 slots on the machine's engine, and at 2 + 2 slots over it and a
 * second daemon started here (its own socket and data root, no bridge), alternating, each run in a
 * fresh state folder, after an unmeasured run of each (derived images built, the second engine
 * given the task images). Prints the median wall times and their ratio.
 *
 * Both engines are on this machine and share its cores: the ratio measures what spreading costs
 * (the second daemon, its image transfers, no containers started ahead), not the speed-up two
 * hosts would give. `deno task bench:engines [ROUNDS]` (default 3).
 *
 * @module
 */
import { resolve } from "node:path";
import { Docker } from "../src/engine/docker.ts";
import { DockerSandbox } from "../src/engine/docker_sandbox.ts";
import { loadSuite } from "../src/task/load_suite.ts";
import { startSecondEngine } from "../tests/_second_engine.ts";
import { median } from "./_measure.ts";
import { oracleRun } from "./_oracle_run.ts";

const ROUNDS = Number(Deno.args[0] ?? 3);
const paths = ["tasks"];
const suite = await loadSuite(paths);
const verdictTasks = { ...suite, tasks: suite.tasks.filter((task) => !task.harbor) };

const docker = new Docker({ PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin" });
await docker.ping();
const a = new DockerSandbox(docker);
// Inside the project: the bench permission set writes nowhere else.
await Deno.mkdir("tests/.artifacts", { recursive: true });
await using second = await startSecondEngine(resolve("tests/.artifacts"));
const b = new DockerSandbox(second.docker);
const engines = [{ name: "a", slots: 2, sandbox: a }, { name: "b", slots: 2, sandbox: b }];

async function timed(run: () => Promise<number>): Promise<number> {
  const start = performance.now();
  const passed = await run();
  if (passed !== verdictTasks.tasks.length) {
    throw new Error(`the oracle passed ${passed} of ${verdictTasks.tasks.length} tasks`);
  }
  return performance.now() - start;
}

const one = () => oracleRun(a, verdictTasks, paths, 2);
const two = () => oracleRun(a, verdictTasks, paths, 4, engines);
await timed(one);
await timed(two);
const [ones, twos]: [number[], number[]] = [[], []];
for (let round = 0; round < ROUNDS; round++) {
  ones.push(await timed(one));
  twos.push(await timed(two));
}
const [m1, m2] = [median(ones), median(twos)];
console.log(`oracle over ${verdictTasks.tasks.length} tasks, medians of ${ROUNDS} rounds:`);
console.log(`  one engine, 2 slots:            ${(m1 / 1000).toFixed(1)} s`);
console.log(`  two engines, 2 + 2 slots:       ${(m2 / 1000).toFixed(1)} s`);
console.log(`  ratio (two / one):              ${(m2 / m1).toFixed(2)}x`);
console.log("  (both engines on one machine: this measures the cost of spreading, not a speed-up)");
