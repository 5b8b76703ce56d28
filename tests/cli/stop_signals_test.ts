import assert from "node:assert/strict";
import { join } from "node:path";
import type { Results } from "../../src/report/results.ts";
import { containersLabelled, requireDocker } from "../_docker.ts";
import { PROJECT_ROOT, runVerdict, scratchDir } from "../_verdict.ts";
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

Deno.test("Ctrl-C on a real terminal reaches the whole process group, docker calls included: containers removed, exit 130, resumable", async () => {
  const docker = await requireDocker();
  await using home = await scratchDir("ctrl-c");
  const args = [...EXPERIMENT, "--concurrency", "2", "--home", home.path];
  const command = ["deno", "run", "-P=verdict", "--quiet", "cli.ts", ...args]
    .map((word) => `'${word}'`).join(" ");
  // util-linux `script` gives the CLI a pseudo-terminal; a ^C typed into it makes the terminal
  // send SIGINT to its foreground process group, as a user's Ctrl-C does.
  const terminal = new Deno.Command("script", {
    args: ["--quiet", "--return", "--command", command, "/dev/null"],
    cwd: PROJECT_ROOT,
    env: { TERM: "xterm" },
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const screen = new Response(terminal.stdout).text();
  const stderr = new Response(terminal.stderr).text();
  const run = await runIdOf(home.path);
  await waitForContainers(docker, `verdict.run=${run}`, 2);
  const keys = terminal.stdin.getWriter();
  await keys.write(new TextEncoder().encode("\x03"));
  const { code } = await terminal.status;
  await keys.close().catch(() => {});
  const shown = (await screen).replaceAll("\r\n", "\n");
  assert.equal(code, 130, `${shown}${await stderr}`);
  assert.match(shown, /interrupted: \d of 2 trials/);
  assert.deepEqual(await containersLabelled(docker, `verdict.run=${run}`), []);
  const resumed = await runVerdict(["resume", run, "--home", home.path]);
  assert.equal(resumed.code, 0, resumed.stderr);
  const trials = (await results(home.path, run)).trials;
  assert.deepEqual(trials.map((trial) => trial.verdict), ["pass", "pass"]);
});

/** The id of the first run folder that appears in a state folder. */
async function runIdOf(home: string): Promise<string> {
  for (let tries = 0; tries < 300; tries++) {
    try {
      for await (const entry of Deno.readDir(join(home, "runs"))) return entry.name;
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`no run folder appeared in ${home}`);
}
