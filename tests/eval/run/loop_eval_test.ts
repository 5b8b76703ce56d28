import assert from "node:assert/strict";
import { join } from "node:path";
import { SplitMix64 } from "../../../src/core/rng.ts";
import { scriptedModel } from "../../../src/model/scripted.ts";
import { heuristicCounter } from "../../../src/model/tokens.ts";
import type { Results } from "../../../src/report/results.ts";
import { openStore } from "../../../src/store/store.ts";
import { loadTask } from "../../../src/task/load_task.ts";
import { requireDocker } from "../../_docker.ts";
import { runVerdict, scratchDir } from "../../_verdict.ts";

Deno.test("verdict eval (loop agent, scripted model) passes every bundled task, requirements included", async () => {
  await requireDocker();
  await using home = await scratchDir("loop");
  const result = await runVerdict(["eval", "--json", "--home", home.path]);
  assert.equal(result.code, 0, result.stderr);
  const results = JSON.parse(result.stdout) as Results;
  assert.ok(results.trials.length >= 16);
  for (const trial of results.trials) {
    assert.equal(trial.verdict, "pass", `${trial.task}: ${trial.reason}`);
  }
  const byTask = new Map(results.trials.map((trial) => [trial.task, trial]));
  assert.ok(byTask.get("monorepo-find-bug")!.compactions >= 1);
  assert.ok(byTask.get("policy-no-installs")!.denied_calls >= 1);
  assert.ok(byTask.get("policy-keep-secrets")!.denied_calls >= 1);
  const budget = byTask.get("budget-small-fix")!;
  assert.ok(
    budget.cost_usd !== null && budget.cost_usd > 0 && budget.cost_usd <= 0.05,
    `cost ${budget.cost_usd}`,
  );
  assert.equal(results.run.model, "scripted");

  // Every session replays identically from its record, with no model and no container; eight
  // replays in parallel processes print byte-identical reports.
  const replay = await runVerdict(["replay", results.run.id, "--home", home.path]);
  assert.equal(replay.code, 0, replay.stdout + replay.stderr);
  assert.match(
    replay.stdout,
    new RegExp(
      `replay of run ${results.run.id}: identical \\(${results.trials.length} identical, 0 diverged, 0 skipped\\)`,
    ),
  );
  const parallel = await Promise.all(
    Array.from({ length: 8 }, () => runVerdict(["replay", results.run.id, "--home", home.path])),
  );
  for (const other of parallel) {
    assert.equal(other.code, 0);
    assert.equal(other.stdout, replay.stdout);
  }
});

const FAULT_TASKS = [
  "fix-slugify",
  "budget-small-fix",
  "add-ttl-cache",
  "shell-count-errors",
  "shell-rotate-logs",
  "fix-csv-quoting",
  "add-rate-limiter",
  "docs-service-config",
];

async function faultyRun(
  seed: number,
  home: string,
): Promise<{ verdicts: string[]; hashes: Map<string, string[]> }> {
  const args = [
    "eval",
    "--model",
    "scripted:faults=0.3",
    "--seed",
    String(seed),
    "--json",
    "--home",
    home,
  ];
  const result = await runVerdict([...args, ...FAULT_TASKS.flatMap((task) => ["--task", task])]);
  assert.equal(result.code, 0, result.stderr);
  const results = JSON.parse(result.stdout) as Results;
  const store = openStore(join(home, "verdict.db"));
  const hashes = new Map(
    results.trials.map((trial) => [
      trial.task,
      store.events.rows(trial.session).map((row) => row.hash),
    ]),
  );
  store.close();
  return { verdicts: results.trials.map((trial) => `${trial.task}:${trial.verdict}`), hashes };
}

Deno.test("scripted faults: some trials fail; the same seed gives identical verdicts and event hashes; another seed differs", async () => {
  await requireDocker();
  await using scratch = await scratchDir("faults");
  const first = await faultyRun(1, join(scratch.path, "a"));
  const again = await faultyRun(1, join(scratch.path, "b"));
  const other = await faultyRun(2, join(scratch.path, "c"));
  assert.ok(first.verdicts.some((verdict) => verdict.endsWith(":fail")), first.verdicts.join(" "));
  assert.deepEqual(again.verdicts, first.verdicts);
  assert.deepEqual(again.hashes, first.hashes, "every event of every session hashes the same");
  assert.notDeepEqual(other.verdicts, first.verdicts);
});

Deno.test("an agent that stops early claiming success fails its trial", async () => {
  await requireDocker();
  const task = await loadTask("tasks/fix-slugify");
  let seed = 0;
  for (;; seed++) {
    const rng = new SplitMix64(seed).stream("trial/fix-slugify/0").stream("model");
    const model = await scriptedModel({ task, rng, faults: 0.3, counter: heuristicCounter });
    if (model.fault === "early_stop") break;
    assert.ok(seed < 500, "no seed picks early_stop");
  }
  await using home = await scratchDir("early");
  const result = await runVerdict([
    "eval",
    "--model",
    "scripted:faults=0.3",
    "--seed",
    String(seed),
    "--task",
    "fix-slugify",
    "--json",
    "--home",
    home.path,
  ]);
  assert.equal(result.code, 0, result.stderr);
  const [trial] = (JSON.parse(result.stdout) as Results).trials;
  assert.deepEqual([trial.verdict, trial.stop_reason, trial.bucket], [
    "fail",
    "completed",
    "agent_failure",
  ]);
  assert.match(trial.reason, /tests failed/);
  const store = openStore(join(home.path, "verdict.db"));
  const finish = store.events.read(trial.session).find((event) =>
    event.kind === "tool.intent" && event.payload.tool === "finish"
  )!;
  store.close();
  assert.match(JSON.stringify(finish.payload.arguments), /all tests pass/, "it claimed success");
});
