/**
 * One run over two Docker engines on this machine (a second daemon stands in for another host):
 * the trials spread over both, each stays on one, the record says where, and the run is the one a
 * single engine makes: the same id and verdicts. Nothing of the host reaches engine b's containers
 * through a bind mount, and the task image it lacked was sent to it with the same id.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { Results } from "../../../src/report/results.ts";
import { requireDocker } from "../../_docker.ts";
import {
  bothEngines,
  MAIN_ENGINE,
  startSecondEngine,
  trialEngines,
  watchMounts,
} from "../../_second_engine.ts";
import { scratchDir } from "../../_verdict.ts";
import { runVerdictInProcess } from "../../cli/_in_process.ts";

const TASKS = ["tasks/shell-count-errors", "tasks/shell-rotate-logs"];

Deno.test("--engine a=2 --engine b=2: trials on both engines, the same run id and verdicts as one engine, no host path mounted on b", async () => {
  const docker = await requireDocker();
  await using b = await startSecondEngine();
  await using dir = await scratchDir("engines-docker");
  const a = MAIN_ENGINE;
  const common = [...TASKS, "--agent", "oracle", "--repeat", "2", "--json"];

  const one = await runVerdictInProcess(["eval", ...common, "--home", join(dir.path, "one")]);
  assert.equal(one.code, 0, one.stderr);

  // Engine b's containers, looked at while the run goes: none may mount a host path.
  const watching = watchMounts(b);
  const two = await runVerdictInProcess([
    "eval",
    ...common,
    ...bothEngines(b, 2),
    "--home",
    join(dir.path, "two"),
  ]);
  const mounts = await watching.stop();
  assert.equal(two.code, 0, two.stderr);

  const [single, spread] = [one, two].map((result) => JSON.parse(result.stdout) as Results);
  assert.equal(spread.run.id, single.run.id);
  const verdicts = (results: Results) =>
    results.trials.map((trial) => `${trial.task}#${trial.repeat} ${trial.verdict}`);
  assert.deepEqual(verdicts(spread), verdicts(single));

  const where = await trialEngines(spread, join(dir.path, "two"));
  assert.deepEqual([...new Set(where)].sort(), [a, b.host].sort(), "both engines ran trials");

  assert.ok(mounts.length > 0, "engine b's containers were seen");
  for (const found of mounts) assert.equal(found, "[]", `a container on b mounts ${found}`);
  const ids = await Promise.all(
    [docker, b.docker].map((engine) =>
      engine.text(["image", "inspect", "--format", "{{.Id}}", "verdict/busybox"])
    ),
  );
  assert.equal(ids[1], ids[0], "the image arrived with its id");

  // clean reaches every engine the folder's runs used.
  const derived = () => b.docker.text(["images", "--filter", "label=verdict.derived", "-q"]);
  assert.notEqual(await derived(), "", "engine b has the run's derived images");
  const cleaned = await runVerdictInProcess(["clean", "--home", join(dir.path, "two")]);
  assert.equal(cleaned.code, 0, cleaned.stderr);
  assert.ok(cleaned.stdout.includes(` on ${b.host}\n`), cleaned.stdout);
  assert.equal(await derived(), "", "engine b's derived images are gone");
  await b.stop();
  // A second daemon on this host leaves the first's network alone: a container on the first
  // engine's default network (its docker0 bridge) still starts.
  const plain = await docker.run([
    "run",
    "--rm",
    "--label",
    "verdict.test=engines",
    "verdict/busybox",
    "true",
  ]);
  assert.equal(plain.code, 0, plain.stderr);
});

Deno.test("engine b's daemon stopped mid-run: its trial goes on on a, every trial gets a verdict once, verify is intact, replay identical", async () => {
  await requireDocker();
  await using b = await startSecondEngine();
  await using dir = await scratchDir("engines-lost-docker");
  const a = MAIN_ENGINE;
  const home = join(dir.path, "home");
  // b gets its first container, then its daemon stops.
  let stopping: Promise<void> | undefined;
  const watch = (async () => {
    while (stopping === undefined) {
      const listed = await b.docker.run(["ps", "-q"]).catch(() => undefined);
      if (listed && new TextDecoder().decode(listed.stdout).trim() !== "") stopping = b.stop();
      else await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  const evaluated = await runVerdictInProcess([
    "eval",
    ...TASKS,
    "--agent",
    "oracle",
    "--repeat",
    "2",
    ...bothEngines(b, 1),
    "--json",
    "--home",
    home,
  ]);
  stopping ??= b.stop();
  await watch;
  await stopping;
  const results = JSON.parse(evaluated.stdout) as Results;
  assert.deepEqual(
    results.trials.map((trial) => `${trial.task}#${trial.repeat} ${trial.verdict}`),
    TASKS.flatMap((task) => [`${task.slice(6)}#0 pass`, `${task.slice(6)}#1 pass`]),
    evaluated.stderr,
  );
  assert.equal(results.retried, undefined, "no trial is recorded twice");
  assert.equal(evaluated.code, 0, evaluated.stderr);
  const moves = await Promise.all(results.trials.map(async (trial) => {
    const shown = await runVerdictInProcess(["show", trial.session, "--home", home]);
    return shown.stdout.match(/^moved from engine (.*) to (.*), its engine lost: (.*)$/m);
  }));
  const moved = moves.filter((move) => move !== null);
  assert.ok(moved.length >= 1, "the trial on b moved to a, in its own session");
  for (const [, from, to] of moved) assert.deepEqual([from, to], [b.host, a]);
  const verified = await runVerdictInProcess(["verify", results.run.id, "--home", home]);
  assert.equal(verified.code, 0, verified.stdout + verified.stderr);
  const replayed = await runVerdictInProcess(["replay", results.run.id, "--home", home]);
  assert.equal(replayed.code, 0, replayed.stdout + replayed.stderr);
});

// Engine b holds an image under a task image's name, but another one (another build, or someone
// else's): the run is refused before anything is recorded, naming both ids.
Deno.test("an engine whose task image differs (another id under the same name) is refused, exit 3, nothing recorded", async () => {
  await requireDocker();
  await using b = await startSecondEngine();
  await using dir = await scratchDir("engines-differ");
  const a = MAIN_ENGINE;
  const tar = await b.docker.run(["import", "-", "verdict/busybox"], {
    // An empty tar archive: two zeroed 512-byte blocks.
    stdin: new Uint8Array(1024),
  });
  assert.equal(tar.code, 0, tar.stderr);
  const home = join(dir.path, "home");
  const refused = await runVerdictInProcess([
    "eval",
    TASKS[0],
    "--agent",
    "oracle",
    "--engine",
    a,
    "--engine",
    b.host,
    "--home",
    home,
  ]);
  assert.equal(refused.code, 3, refused.stderr);
  assert.match(
    refused.stderr,
    /verdict\/busybox differs between engines: .* has sha256:.*, .* has sha256:/,
  );
  await assert.rejects(Deno.stat(join(home, "verdict.db")), Deno.errors.NotFound);
});
