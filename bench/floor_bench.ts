/**
 * Verdict against the naive harness (issue 28): for each bundled task, what a harness that grades
 * in the agent's own container does (`docker run -d`, one `docker exec` that copies the workspace,
 * the task's tests and its reference solution in and applies the solution, one `docker exec` of the
 * task's test script in that same container, `docker rm -f`), beside Verdict's oracle run of the
 * same tasks (a fresh grading container, the seal, the record), at concurrency 1 and 4, in
 * interleaved rounds, each Verdict run in a fresh state folder. A third harness, the fresh-grader
 * floor, does the least any harness with Verdict's rule does through the docker CLI (the naive
 * trial, then the workdir copied out, a second container that unpacks it with the tests and runs
 * them, one removal of both): how much of Verdict's cost the rule itself takes.
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
import { AGENT_USER } from "../src/engine/sandbox.ts";
import { packTar, parseTar, type TarEntry } from "../src/engine/tar.ts";
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
  tests: await under(task.dir, "tests", "verdict/tests"),
})));

/** The entries of `dir/folder`, named under `at`, with `at` itself first. */
async function under(dir: string, folder: string, at: string): Promise<TarEntry[]> {
  return [
    { path: at, type: "dir", mode: 0o755 },
    ...(await readTree(join(dir, folder)).catch(() => [])).map((entry) => ({
      ...entry,
      path: `${at}/${entry.path}`,
    })),
  ];
}

/** The one tar the naive harness sends: workspace at the workdir, tests, solution. */
async function naiveInput(dir: string, workdir: string): Promise<Uint8Array> {
  return packTar([
    ...await under(dir, "workspace", workdir.slice(1)),
    { path: "verdict", type: "dir", mode: 0o755 },
    ...await under(dir, "tests", "verdict/tests"),
    { path: "naive", type: "dir", mode: 0o755 },
    ...await under(dir, "solution", "naive/solution"),
  ]);
}

// As root: unpack, apply the solution, then hand the workdir to the user the tests run as (some
// tasks check that a read-only file stops their script, which root would not see).
const APPLY = `cd / && tar -x -f - && cd "$1" || exit 1
if [ -d /naive/solution/files ]; then cp -R /naive/solution/files/. .; fi
if [ -f /naive/solution/solve.sh ]; then sh /naive/solution/solve.sh; fi
chown -R ${AGENT_USER} "$1"`;

type FloorTrial = (typeof naiveTrials)[number];

async function startIdle(image: string): Promise<string> {
  return (await docker.text([
    "run",
    "-d",
    "--pull=never",
    "--network=none",
    "--label",
    `verdict.role=${BENCH_ROLE}`,
    image,
    "sleep",
    "infinity",
  ])).trim();
}

/** Runs the task's test script in container `id`, as the agent user, in the workdir. */
async function runTests(id: string, trial: FloorTrial, stdin?: Uint8Array): Promise<boolean> {
  const graded = await docker.run([
    "exec",
    ...stdin === undefined ? [] : ["-i"],
    `--user=${AGENT_USER}`,
    "-w",
    trial.workdir,
    id,
    "sh",
    "-c",
    `${stdin === undefined ? "" : "tar -x -f - && "}sh /verdict/tests/test.sh`,
  ], stdin === undefined ? {} : { stdin });
  return graded.code === 0;
}

/** One naive trial; whether its test script passed. */
async function naiveTrial(trial: FloorTrial): Promise<boolean> {
  const id = await startIdle(trial.image);
  try {
    const applied = await docker.run(
      ["exec", "-i", id, "sh", "-c", APPLY, "apply", trial.workdir],
      { stdin: trial.input },
    );
    return applied.code === 0 && await runTests(id, trial);
  } finally {
    await docker.run(["rm", "-f", id]);
  }
}

/**
 * The least a harness that grades in a fresh container does through the docker CLI: the naive
 * trial's container and apply, the workdir copied out (the seal), a second container from an
 * image that holds the tests (made once, as Verdict's grader images are), one exec that unpacks
 * the sealed workdir and runs the test script, one removal of both. No record, no checks: the
 * floor under any harness with Verdict's rule.
 */
async function freshGraderTrial(trial: FloorTrial): Promise<boolean> {
  const agent = await startIdle(trial.image);
  let grader: string | undefined;
  try {
    const applied = await docker.run(
      ["exec", "-i", agent, "sh", "-c", APPLY, "apply", trial.workdir],
      { stdin: trial.input },
    );
    if (applied.code !== 0) return false;
    const sealed = await docker.run(["cp", `${agent}:${trial.workdir}`, "-"]);
    if (sealed.code !== 0) return false;
    // Named from inside the workdir, which the grader's image holds empty and the agent user's.
    const files = parseTar(sealed.stdout).flatMap((entry) => {
      const path = entry.path.split("/").slice(1).join("/");
      return path === "" ? [] : [{ ...entry, path }];
    });
    grader = await startIdle(await floorGraderImage(trial));
    return await runTests(grader, trial, packTar(files));
  } finally {
    await docker.run(["rm", "-f", agent, ...grader === undefined ? [] : [grader]]);
  }
}

const BENCH_ROLE = "floor-bench";
const graderImages = new Map<string, Promise<string>>();

/** The task's image with its tests and an empty workdir of the agent user's, committed once. */
function floorGraderImage(trial: FloorTrial): Promise<string> {
  let image = graderImages.get(trial.id);
  if (image === undefined) {
    image = (async () => {
      const id = await startIdle(trial.image);
      try {
        const tar = packTar([{ path: "verdict", type: "dir", mode: 0o755 }, ...trial.tests]);
        const made = await docker.run([
          "exec",
          "-i",
          id,
          "sh",
          "-c",
          MAKE_GRADER,
          "make",
          trial.workdir,
        ], {
          stdin: tar,
        });
        if (made.code !== 0) throw new Error(`floor grader for ${trial.id}: ${made.stderr}`);
        const name = `verdict-floor-grader:${trial.id}`;
        await docker.text(["commit", "--change", `LABEL verdict.role=${BENCH_ROLE}`, id, name]);
        return name;
      } finally {
        await docker.run(["rm", "-f", id]);
      }
    })();
    graderImages.set(trial.id, image);
  }
  return image;
}

const MAKE_GRADER = `cd / && tar -x -f - && mkdir -p "$1" && chown ${AGENT_USER} "$1"`;

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

/** Every bundled task through `trial` (a naive or fresh-grader one), `concurrency` at a time. */
function harnessRun(
  trial: (trial: FloorTrial) => Promise<boolean>,
  concurrency: number,
): Promise<Sample> {
  return measured(concurrency, async () => {
    const queue = [...naiveTrials];
    let passed = 0;
    await Promise.all(Array.from({ length: concurrency }, async () => {
      for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
        if (await trial(next)) passed++;
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

await harnessRun(naiveTrial, 4); // warms the engine's caches
await verdictRun(4); // builds (or finds) the derived images
await Promise.all(naiveTrials.map(floorGraderImage)); // the fresh-grader floor's, likewise
type Side = "naive" | "fresh" | "verdict";
const samples: Record<Side, Record<1 | 4, Sample[]>> = {
  naive: { 1: [], 4: [] },
  fresh: { 1: [], 4: [] },
  verdict: { 1: [], 4: [] },
};
const paths: DockerCall[][] = [];
for (let round = 0; round < ROUNDS; round++) {
  for (const concurrency of round % 2 === 0 ? [1, 4] as const : [4, 1] as const) {
    samples.naive[concurrency].push(await harnessRun(naiveTrial, concurrency));
    samples.fresh[concurrency].push(await harnessRun(freshGraderTrial, concurrency));
    docker.calls.length = 0;
    samples.verdict[concurrency].push(await verdictRun(concurrency));
    if (concurrency === 1) paths.push(criticalPath(docker.calls));
  }
}

const tasks = suite.tasks.length;
const pick = (side: Side, concurrency: 1 | 4, key: "wallMs" | "cpuS" | "passed") =>
  median(samples[side][concurrency].map((sample) => sample[key]));
const verdict = (ok: boolean) => ok ? "holds" : "missed";
console.log(`floor: ${tasks} bundled tasks, ${ROUNDS} interleaved rounds, medians per trial`);
for (const concurrency of [1, 4] as const) {
  const wall = pick("verdict", concurrency, "wallMs") / pick("naive", concurrency, "wallMs");
  const cpu = pick("verdict", concurrency, "cpuS") / pick("naive", concurrency, "cpuS");
  const sides = (["verdict", "fresh", "naive"] as const).map((side) =>
    `${side} ${pick(side, concurrency, "wallMs").toFixed(0)} ms ` +
    `${pick(side, concurrency, "cpuS").toFixed(2)} CPU-s ` +
    `(passed ${pick(side, concurrency, "passed")} of ${tasks})`
  ).join(", ");
  console.log(
    `concurrency ${concurrency}: ${sides}; Verdict / naive: wall ${wall.toFixed(2)} (target <= ` +
      `${TARGETS.wall[concurrency]}: ${verdict(wall <= TARGETS.wall[concurrency])}), CPU ` +
      `${cpu.toFixed(2)} (target <= ${TARGETS.cpu}: ${verdict(cpu <= TARGETS.cpu)}); ` +
      `fresh-grader floor / naive: wall ${
        (pick("fresh", concurrency, "wallMs") / pick("naive", concurrency, "wallMs")).toFixed(2)
      }, CPU ${
        (pick("fresh", concurrency, "cpuS") / pick("naive", concurrency, "cpuS")).toFixed(2)
      }; each round's Verdict / naive wall: ${roundRatios(concurrency).join(" ")}`,
  );
}
/** Verdict / naive wall of each round at `concurrency`, run side by side: the rounds' spread. */
function roundRatios(concurrency: 1 | 4): string[] {
  return samples.verdict[concurrency].map((sample, round) =>
    (sample.wallMs / samples.naive[concurrency][round].wallMs).toFixed(2)
  );
}

const calls = median(paths.map((path) => path.length)) / tasks;
console.log(
  `critical path at concurrency 1: ${
    calls.toFixed(2)
  } docker calls per trial (naive 4; target <= ` +
    `${TARGETS.calls}: ${verdict(calls <= TARGETS.calls)}): ${describePath(paths)}`,
);
// The grader images this run made (never one it did not).
const made = await Promise.all([...graderImages.values()].map((image) => image.catch(() => "")));
await docker.run(["rmi", ...made.filter((name) => name !== "")]);
