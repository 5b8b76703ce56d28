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

// The bundled tasks whose requirements only a model-driven run can meet (`tasks check` waives them
// for its oracle, which passes every bundled task in bundled_suite_test.ts), and the one on a budget.
const REQUIREMENT_TASKS = [
  "tasks/budget-small-fix",
  "tasks/monorepo-find-bug",
  "tasks/policy-keep-secrets",
  "tasks/policy-no-installs",
];

Deno.test("verdict eval (loop agent, scripted model) passes the bundled tasks with model-only requirements, requirements included; each replays identically", async () => {
  await requireDocker();
  await using home = await scratchDir("loop");
  const result = await runVerdict(["eval", ...REQUIREMENT_TASKS, "--json", "--home", home.path]);
  assert.equal(result.code, 0, result.stderr);
  const results = JSON.parse(result.stdout) as Results;
  assert.equal(results.trials.length, REQUIREMENT_TASKS.length);
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

  // Every session replays identically from its record, with no model and no container; replays
  // in parallel processes print byte-identical reports.
  const replays = await Promise.all(
    Array.from({ length: 3 }, () => runVerdict(["replay", results.run.id, "--home", home.path])),
  );
  for (const replay of replays) {
    assert.equal(replay.code, 0, replay.stdout + replay.stderr);
    assert.equal(replay.stdout, replays[0].stdout);
  }
  assert.match(
    replays[0].stdout,
    new RegExp(
      `replay of run ${results.run.id}: identical \\(${results.trials.length} identical, 0 diverged, 0 skipped\\)`,
    ),
  );
});

// Two busybox tasks; the seeds are picked from the scripted model's own fault draw, so the run
// must show what the draw says: one trial stopped early while claiming success, or none faulty.
const FAULT_TASKS = ["shell-count-errors", "shell-rotate-logs"];

/** The fault the scripted model draws, at `faults=0.3` and `seed`, for the task's first trial. */
async function faultOf(seed: number, id: string): Promise<string | null> {
  const task = await loadTask(`tasks/${id}`);
  const rng = new SplitMix64(seed).stream(`trial/${id}/0`).stream("model");
  return (await scriptedModel({ task, rng, faults: 0.3, counter: heuristicCounter })).fault;
}

/** The first seed from 0 whose fault draw `wanted` accepts. */
async function seedWhere(wanted: (faults: (string | null)[]) => boolean): Promise<number> {
  for (let seed = 0; seed < 500; seed++) {
    if (wanted(await Promise.all(FAULT_TASKS.map((id) => faultOf(seed, id))))) return seed;
  }
  throw new Error("no seed under 500 draws the faults wanted");
}

async function faultyRun(seed: number, home: string) {
  const result = await runVerdict([
    "eval",
    "--model",
    "scripted:faults=0.3",
    "--seed",
    String(seed),
    "--json",
    "--home",
    home,
    ...FAULT_TASKS.flatMap((task) => ["--task", task]),
  ]);
  assert.equal(result.code, 0, result.stderr);
  const results = JSON.parse(result.stdout) as Results;
  const store = openStore(join(home, "verdict.db"));
  try {
    return {
      trials: results.trials,
      verdicts: results.trials.map((trial) => `${trial.task}:${trial.verdict}`),
      hashes: new Map(
        results.trials.map((t) => [t.task, store.events.rows(t.session).map((row) => row.hash)]),
      ),
      // What each trial's `finish` call said.
      claims: new Map(results.trials.map((t) => [
        t.task,
        JSON.stringify(
          store.events.read(t.session).find((event) =>
            event.kind === "tool.intent" && event.payload.tool === "finish"
          )?.payload.arguments,
        ),
      ])),
    };
  } finally {
    store.close();
  }
}

Deno.test("scripted faults: an agent that stops early claiming success fails; the same seed gives identical verdicts and event hashes; another seed differs", async () => {
  await requireDocker();
  const early = await seedWhere(([first]) => first === "early_stop");
  const clean = await seedWhere((faults) => faults.every((fault) => fault === null));
  await using scratch = await scratchDir("faults");
  const [first, again, other] = await Promise.all([
    faultyRun(early, join(scratch.path, "a")),
    faultyRun(early, join(scratch.path, "b")),
    faultyRun(clean, join(scratch.path, "c")),
  ]);
  // The trial that stopped early: it claimed success, its tests failed, the agent is at fault.
  const stopped = first.trials.find((trial) => trial.task === FAULT_TASKS[0])!;
  assert.deepEqual([stopped.verdict, stopped.stop_reason, stopped.bucket], [
    "fail",
    "completed",
    "agent_failure",
  ]);
  assert.match(stopped.reason, /tests failed/);
  assert.match(
    first.claims.get(stopped.task)!,
    /all tests pass/,
    "it claimed success",
  );
  assert.deepEqual(again.verdicts, first.verdicts);
  assert.deepEqual(again.hashes, first.hashes, "every event of every session hashes the same");
  assert.deepEqual(other.verdicts, FAULT_TASKS.map((task) => `${task}:pass`));
  assert.notDeepEqual(other.verdicts, first.verdicts);
});
