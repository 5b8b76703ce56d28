/**
 * Verdict against the naive harness (issue 28): for each bundled task, what a harness that grades
 * in the agent's own container does (`docker run -d`, one `docker exec` that copies the workspace,
 * the task's tests and its reference solution in and applies the solution, one `docker exec` of the
 * task's test script in that same container, `docker rm -f`), beside Verdict's oracle run of the
 * same tasks (a fresh grading container, the seal, the record), at concurrency 1 and 4, in
 * interleaved rounds, each Verdict run in a fresh state folder.
 *
 * Printed, medians over the rounds (nearest rank): per-trial wall (a slot's busy time: wall times
 * concurrency over trials), the whole machine's CPU-seconds per trial (all cores' non-idle time
 * from /proc/stat, read through `cat`: Deno reads /proc only with `--allow-all`), their Verdict /
 * naive ratios against issue 28's targets, and the docker calls a Verdict trial waits on one after
 * another at concurrency 1 (the critical path of `_docker_calls.ts`, run-level calls spread over
 * the trials) with each kind's median time. It reports; it does not fail on a missed target.
 * `deno task bench:floor [ROUNDS]` (default 5).
 *
 * @module
 */
import { join } from "node:path";
import { DockerSandbox } from "../src/engine/docker_sandbox.ts";
import { packTar, type TarEntry } from "../src/engine/tar.ts";
import { readTree } from "../src/task/file_tree.ts";
import { loadSuite } from "../src/task/load_suite.ts";
import { CountingDocker, criticalPath, type DockerCall } from "./_docker_calls.ts";
import { median } from "./_measure.ts";
import { oracleRun } from "./_oracle_run.ts";

const ROUNDS = Number(Deno.args[0] ?? 5);
const TARGETS = { wall: { 1: 1.0, 4: 1.3 }, cpu: 1.5, calls: 5 };

const docker = new CountingDocker({ PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin" });
await docker.ping();
const sandbox = new DockerSandbox(docker);
const suite = await loadSuite(["tasks"]);
const naiveTrials = await Promise.all(suite.tasks.map(async (task) => ({
  id: task.id,
  image: task.manifest.image,
  workdir: task.manifest.workdir,
  input: await naiveInput(task.dir, task.manifest.workdir),
})));

/** The one tar the naive harness sends: workspace at the workdir, tests, solution. */
async function naiveInput(dir: string, workdir: string): Promise<Uint8Array> {
  const under = async (folder: string, at: string): Promise<TarEntry[]> => [
    { path: at, type: "dir", mode: 0o755 },
    ...(await readTree(join(dir, folder)).catch(() => [])).map((entry) => ({
      ...entry,
      path: `${at}/${entry.path}`,
    })),
  ];
  return packTar([
    ...await under("workspace", workdir.slice(1)),
    { path: "verdict", type: "dir", mode: 0o755 },
    ...await under("tests", "verdict/tests"),
    { path: "naive", type: "dir", mode: 0o755 },
    ...await under("solution", "naive/solution"),
  ]);
}

const APPLY = `cd / && tar -x -f - && cd "$1" || exit 1
if [ -d /naive/solution/files ]; then cp -R /naive/solution/files/. .; fi
if [ -f /naive/solution/solve.sh ]; then sh /naive/solution/solve.sh; fi`;

/** One naive trial; whether its test script passed. */
async function naiveTrial(trial: (typeof naiveTrials)[number]): Promise<boolean> {
  const id = await docker.text([
    "run",
    "-d",
    "--pull=never",
    "--network=none",
    "--label",
    "verdict.role=floor-bench",
    trial.image,
    "sleep",
    "infinity",
  ]);
  try {
    const applied = await docker.run(
      ["exec", "-i", id, "sh", "-c", APPLY, "apply", trial.workdir],
      { stdin: trial.input },
    );
    if (applied.code !== 0) return false;
    const graded = await docker.run([
      "exec",
      "-w",
      trial.workdir,
      id,
      "sh",
      "/verdict/tests/test.sh",
    ]);
    return graded.code === 0;
  } finally {
    await docker.run(["rm", "-f", id]);
  }
}

interface Sample {
  wallMs: number;
  cpuS: number;
  passed: number;
}

/** Non-idle CPU-seconds of the whole machine so far (all cores). */
async function machineCpuS(): Promise<number> {
  const read = await new Deno.Command("cat", { args: ["/proc/stat"] }).output();
  const fields = new TextDecoder().decode(read.stdout).split("\n")[0].trim().split(/\s+/);
  const [user, nice, system, , , irq, softirq, steal] = fields.slice(1).map(Number);
  return (user + nice + system + irq + softirq + (steal ?? 0)) / 100;
}

async function measured(concurrency: number, body: () => Promise<number>): Promise<Sample> {
  const cpu = await machineCpuS();
  const start = performance.now();
  const passed = await body();
  const wallMs = performance.now() - start;
  const trials = suite.tasks.length;
  return {
    wallMs: wallMs * concurrency / trials,
    cpuS: (await machineCpuS() - cpu) / trials,
    passed,
  };
}

function naiveRun(concurrency: number): Promise<Sample> {
  return measured(concurrency, async () => {
    const queue = [...naiveTrials];
    let passed = 0;
    await Promise.all(Array.from({ length: concurrency }, async () => {
      for (let trial = queue.shift(); trial !== undefined; trial = queue.shift()) {
        if (await naiveTrial(trial)) passed++;
      }
    }));
    return passed;
  });
}

function verdictRun(concurrency: number): Promise<Sample> {
  return measured(concurrency, () => oracleRun(sandbox, suite, ["tasks"], concurrency));
}

function describePath(paths: DockerCall[][]): string {
  const kinds = new Map<string, number[]>();
  for (const call of paths.flat()) {
    kinds.set(call.command, [...kinds.get(call.command) ?? [], call.end - call.start]);
  }
  return [...kinds].sort(([, a], [, b]) => b.length - a.length).map(([kind, times]) =>
    `${kind} ${(times.length / paths.length / suite.tasks.length).toFixed(2)}x ` +
    `${median(times).toFixed(0)} ms`
  ).join(", ");
}

await naiveRun(4); // warms the engine's caches
await verdictRun(4); // builds (or finds) the derived images
const samples = {
  naive: { 1: [] as Sample[], 4: [] as Sample[] },
  verdict: { 1: [] as Sample[], 4: [] as Sample[] },
};
const paths: DockerCall[][] = [];
for (let round = 0; round < ROUNDS; round++) {
  for (const concurrency of round % 2 === 0 ? [1, 4] as const : [4, 1] as const) {
    samples.naive[concurrency].push(await naiveRun(concurrency));
    docker.calls.length = 0;
    samples.verdict[concurrency].push(await verdictRun(concurrency));
    if (concurrency === 1) paths.push(criticalPath(docker.calls));
  }
}

const tasks = suite.tasks.length;
console.log(`floor: ${tasks} bundled tasks, ${ROUNDS} interleaved rounds, medians per trial`);
for (const concurrency of [1, 4] as const) {
  const pick = (side: Sample[], key: "wallMs" | "cpuS") => median(side.map((s) => s[key]));
  const naive = samples.naive[concurrency];
  const verdict = samples.verdict[concurrency];
  const wall = pick(verdict, "wallMs") / pick(naive, "wallMs");
  const cpu = pick(verdict, "cpuS") / pick(naive, "cpuS");
  console.log(
    `concurrency ${concurrency}: wall ${pick(verdict, "wallMs").toFixed(0)} ms vs naive ` +
      `${pick(naive, "wallMs").toFixed(0)} ms, ratio ${wall.toFixed(2)} (target <= ` +
      `${TARGETS.wall[concurrency]}: ${wall <= TARGETS.wall[concurrency] ? "holds" : "missed"}); ` +
      `CPU ${pick(verdict, "cpuS").toFixed(2)} s vs ${pick(naive, "cpuS").toFixed(2)} s, ratio ` +
      `${cpu.toFixed(2)} (target <= ${TARGETS.cpu}: ${cpu <= TARGETS.cpu ? "holds" : "missed"}); ` +
      `passed ${median(verdict.map((s) => s.passed))} vs ${
        median(naive.map((s) => s.passed))
      } of ${tasks}`,
  );
}
const calls = median(paths.map((path) => path.length)) / tasks;
console.log(
  `critical path at concurrency 1: ${
    calls.toFixed(2)
  } docker calls per trial (naive 4; target <= ` +
    `${TARGETS.calls}: ${calls <= TARGETS.calls ? "holds" : "missed"}): ${describePath(paths)}`,
);
