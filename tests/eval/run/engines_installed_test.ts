/**
 * An installed agent over two engines (a second daemon stands in for another host): the Python
 * fixture agent (`cmd:`, Chat Completions) reaches its trial's gateway on this machine from
 * engine b's containers, which mount nothing of this machine: its files are copied in, and the
 * gateway's bytes come over the sidecar's exec streams. Its trials pass on both engines, and the
 * run verifies and replays. A Harbor task's image, built on a, is sent to b, where its trial
 * passes too.
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

Deno.test("an installed agent (cmd:, through the gateway) and a Harbor task pass on engine b, whose containers mount nothing of this host", async () => {
  await requireDocker();
  await using b = await startSecondEngine();
  await using dir = await scratchDir("engines-installed");
  const a = MAIN_ENGINE;
  const home = join(dir.path, "home");
  const watching = watchMounts(b);
  const evaluated = await runVerdictInProcess([
    "eval",
    "tasks/fix-slugify",
    "--agent",
    "cmd:python3 /verdict/agent/agent.py",
    "--agent-files",
    "tests/fixtures/agents/py_agent",
    "--repeat",
    "2",
    ...bothEngines(b, 1),
    "--json",
    "--home",
    home,
  ]);
  const mounts = await watching.stop();
  assert.equal(evaluated.code, 0, evaluated.stderr);
  const results = JSON.parse(evaluated.stdout) as Results;
  for (const trial of results.trials) {
    assert.deepEqual([trial.verdict, trial.stop_reason], ["pass", "completed"], trial.reason);
    assert.ok(trial.steps >= 3, `${trial.steps} model calls through the gateway`);
  }
  const engines = await trialEngines(results, home);
  assert.deepEqual(engines.sort(), [a, b.host].sort(), "one trial on each engine");
  // The agent's container and its sidecar were both seen on b, with no mount.
  assert.ok(mounts.length >= 2, `engine b's containers were seen (${mounts.length})`);
  for (const found of mounts) assert.equal(found, "[]", `a container on b mounts ${found}`);

  const verified = await runVerdictInProcess(["verify", results.run.id, "--home", home]);
  assert.equal(verified.code, 0, verified.stdout + verified.stderr);
  const replayed = await runVerdictInProcess(["replay", results.run.id, "--home", home]);
  assert.equal(replayed.code, 0, replayed.stdout + replayed.stderr);
  assert.match(replayed.stdout, /identical \(2 identical, 0 diverged, 0 skipped\)/);

  // A Harbor task on the same two engines: its image, built here on a, is sent to b.
  const harborWatch = watchMounts(b);
  const harbor = await runVerdictInProcess([
    "eval",
    "tests/fixtures/harbor/python-bugfix",
    "--agent",
    "oracle",
    "--repeat",
    "2",
    ...bothEngines(b, 1),
    "--json",
    "--home",
    join(dir.path, "harbor"),
  ]);
  const harborMounts = await harborWatch.stop();
  assert.equal(harbor.code, 0, harbor.stderr);
  const harborResults = JSON.parse(harbor.stdout) as Results;
  assert.deepEqual(harborResults.trials.map((trial) => trial.verdict), ["pass", "pass"]);
  const onB = await trialEngines(harborResults, join(dir.path, "harbor"));
  assert.ok(onB.includes(b.host), "a Harbor trial ran on b");
  assert.ok(harborMounts.length >= 1);
  for (const found of harborMounts) assert.equal(found, "[]", `a container on b mounts ${found}`);
});
