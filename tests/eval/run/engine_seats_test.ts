import assert from "node:assert/strict";
import { InfrastructureError } from "../../../src/core/errors.ts";
import type { SandboxOperation } from "../../../src/engine/_memory_container.ts";
import { MemorySandbox } from "../../../src/engine/memory_sandbox.ts";
import { runEval } from "../../../src/eval/run/run_eval.ts";
import { readTrajectory } from "../../../src/report/trajectory.ts";
import { openStore } from "../../../src/store/store.ts";
import { join } from "node:path";
import { scratchDir } from "../../_verdict.ts";
import { runVerdictInProcess } from "../../cli/_in_process.ts";

const TASKS = ["tasks/shell-count-errors", "tasks/shell-rotate-logs", "tasks/fix-slugify"];

function engine(images: string[], fault?: (operation: SandboxOperation) => void) {
  return new MemorySandbox({
    images: Object.fromEntries(images.map((image) => [image, []])),
    exec: ({ script }) => ({ exitCode: script.includes("tests/test.sh") ? 1 : 0 }),
    ...(fault ? { fault } : {}),
  });
}

/** An engine that goes down at its `after`-th container start: from then on nothing answers. */
function dyingEngine(images: string[], after: number) {
  let starts = 0;
  let down = false;
  return engine(images, (operation) => {
    if (operation.op === "start" && ++starts === after) down = true;
    if (down) throw new InfrastructureError("no Docker engine answers: the daemon is stopped");
  });
}

/** The sessions whose containers an engine started. */
function sessionsOn(sandbox: MemorySandbox): Set<string> {
  return new Set(
    sandbox.operations.flatMap((operation) =>
      operation.op === "start" ? [operation.spec.labels["verdict.session"]] : []
    ),
  );
}

// Two engines in memory: a has every image, b none. The run sends b what it lacks, spreads the
// trials over both, keeps each trial's containers on one engine, and records where each ran.
Deno.test("a run over two engines sends the images, spreads the trials, keeps each on one engine and records where", async () => {
  await using dir = await scratchDir("engines");
  const a = engine(["verdict/busybox", "verdict/python:3.11"]);
  const b = engine([]);
  const { results } = await runEval(
    { paths: TASKS, agent: "nop", repeat: 2, home: dir.path },
    {
      sandbox: a,
      engines: [{ name: "a", slots: 2, sandbox: a }, { name: "b", slots: 1, sandbox: b }],
    },
  );
  assert.equal(results.trials.length, 6);
  assert.ok(await b.hasImage("verdict/busybox") && await b.hasImage("verdict/python:3.11"));
  const [onA, onB] = [sessionsOn(a), sessionsOn(b)];
  assert.ok(onA.size > 0 && onB.size > 0, `a ran ${onA.size} trials, b ${onB.size}`);
  assert.equal(onA.size + onB.size, 6, "every trial on one engine, none on both");
  const store = openStore(join(dir.path, "verdict.db"));
  try {
    for (const trial of results.trials) {
      const { engine } = readTrajectory(store, { id: trial.session, task: trial.task, repeat: 0 });
      assert.equal(engine, onA.has(trial.session) ? "a" : "b", trial.session);
    }
  } finally {
    store.close();
  }
});

Deno.test("a run over several engines refuses Harbor tasks before anything is recorded", async () => {
  await using dir = await scratchDir("engines-refused");
  const a = engine(["verdict/busybox"]);
  await assert.rejects(
    runEval(
      { paths: ["tests/fixtures/harbor/system-tool"], agent: "nop", home: dir.path },
      { sandbox: a, engines: [{ name: "a", slots: 1, sandbox: a }] },
    ),
    /--engine runs Verdict tasks so far; system-tool is a Harbor task/,
  );
  await assert.rejects(Deno.stat(join(dir.path, "verdict.db")), Deno.errors.NotFound);
});

// Engine b stops at its second container start. Its trial ends as an infrastructure error, and
// moves: a new attempt runs on a; nothing more goes to b. Every trial ends with a verdict, counted
// once; the record keeps the attempt on b and says why it ended.
Deno.test("an engine lost mid-run: its trial moves to an engine that is left, as a new attempt; none is counted twice", async () => {
  await using dir = await scratchDir("engines-lost");
  const a = engine(["verdict/busybox", "verdict/python:3.11"]);
  const b = dyingEngine(["verdict/busybox", "verdict/python:3.11"], 2);
  const { results } = await runEval(
    { paths: TASKS, agent: "nop", repeat: 2, home: dir.path },
    {
      sandbox: a,
      engines: [{ name: "a", slots: 1, sandbox: a }, { name: "b", slots: 1, sandbox: b }],
    },
  );
  assert.equal(results.trials.length, 6);
  assert.deepEqual(results.trials.map((trial) => trial.bucket), Array(6).fill("agent_failure"));
  assert.equal(results.retried?.length, 1, "the attempt on b stays in the record");
  const moved = results.retried![0];
  assert.match(moved.reason, /no Docker engine answers/);
  const store = openStore(join(dir.path, "verdict.db"));
  try {
    const first = readTrajectory(store, { id: moved.session, task: moved.task, repeat: 0 });
    assert.equal(first.engine, "b");
    const last = results.trials.find((t) => t.task === moved.task && t.repeat === moved.repeat)!;
    assert.equal(
      readTrajectory(store, { id: last.session, task: last.task, repeat: 0 }).engine,
      "a",
    );
  } finally {
    store.close();
  }
  const verified = await runVerdictInProcess(["verify", results.run.id, "--home", dir.path]);
  assert.equal(verified.code, 0, verified.stdout + verified.stderr);
});

Deno.test("every engine lost: the run stops with an infrastructure error (exit 3) naming them, its other trials left for resume", async () => {
  await using dir = await scratchDir("engines-all-lost");
  const a = dyingEngine(["verdict/busybox", "verdict/python:3.11"], 2);
  const b = dyingEngine(["verdict/busybox", "verdict/python:3.11"], 2);
  await assert.rejects(
    runEval(
      { paths: TASKS, agent: "nop", repeat: 2, home: dir.path },
      {
        sandbox: a,
        engines: [{ name: "a", slots: 1, sandbox: a }, { name: "b", slots: 1, sandbox: b }],
      },
    ),
    (error: Error) =>
      error instanceof InfrastructureError &&
      /a, b stopped answering|b, a stopped answering/.test(error.message),
  );
  const listed = await runVerdictInProcess(["runs", "--json", "--home", dir.path]);
  const [run] = JSON.parse(listed.stdout) as { finished: number; status: string }[];
  assert.ok(run.finished < 6, `${run.finished} of 6 trials finished`);
  assert.notEqual(run.status, "finished");
});
