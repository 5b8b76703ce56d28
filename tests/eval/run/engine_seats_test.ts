import assert from "node:assert/strict";
import { InfrastructureError } from "../../../src/core/errors.ts";
import type { ExecRequest, SandboxOperation } from "../../../src/engine/_memory_container.ts";
import { MemorySandbox } from "../../../src/engine/memory_sandbox.ts";
import { packTar, parseTar } from "../../../src/engine/tar.ts";
import { AGENT_OWNER } from "../../../src/engine/sandbox.ts";
import type { TrialAgent } from "../../../src/agent/agent.ts";
import { ZERO_COUNTERS } from "../../../src/store/run_counters.ts";
import { runEval } from "../../../src/eval/run/run_eval.ts";
import { resumeEval } from "../../../src/library/recorded_runs.ts";
import { readTrajectory } from "../../../src/report/trajectory.ts";
import { openStore, type Store } from "../../../src/store/store.ts";
import type { Results } from "../../../src/report/results.ts";
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

// A Harbor task's image is built where the run starts (engine a), then sent to b.
Deno.test("a Harbor task over two engines: its image, built on the first, is sent to the other, and its trials run on both", async () => {
  await using dir = await scratchDir("engines-harbor");
  const a = engine(["verdict/python:3.11"]);
  const b = engine([]);
  const { results } = await runEval(
    { paths: ["tests/fixtures/harbor/system-tool"], agent: "nop", repeat: 2, home: dir.path },
    {
      sandbox: a,
      engines: [{ name: "a", slots: 1, sandbox: a }, { name: "b", slots: 1, sandbox: b }],
    },
  );
  assert.equal(results.trials.length, 2);
  const built = a.operations.find((operation) => operation.op === "buildImage");
  assert.ok(built?.op === "buildImage", "the image was built on a");
  assert.ok(
    a.operations.some((op) => op.op === "sendImage" && op.image === built.tag),
    "and sent to b",
  );
  assert.ok(await b.hasImage(built.tag));
  assert.ok(sessionsOn(a).size > 0 && sessionsOn(b).size > 0, "both engines ran trials");
});

/** An engine that goes down at its `after`-th command: from then on nothing answers. */
function dyingMidAgent(images: string[], after: number) {
  let commands = 0;
  let down = false;
  return engine(images, (operation) => {
    if (operation.op === "exec" && ++commands === after) down = true;
    if (down) throw new InfrastructureError("no Docker engine answers: the daemon is stopped");
  });
}

function modelCalls(store: Store, session: string): number {
  return store.events.read(session).filter((stored) => stored.kind === "model.request").length;
}

// The loop agent (scripted model) on two engines; b stops answering at its sixth command, while
// its trial's agent works. That trial goes on on a from its last checkpoint, in the same session:
// its model calls are not made again (the session holds as many as the same trial run on one
// engine), every trial ends with a verdict once, and the record says where it ran and why it moved.
Deno.test("an engine lost mid-run: its trial goes on on an engine that is left, from its last checkpoint; no call is made twice, none is counted twice", async () => {
  await using dir = await scratchDir("engines-lost");
  const images = ["verdict/busybox", "verdict/python:3.11"];
  const request = { paths: TASKS, agent: "loop", repeat: 1, seed: 5 };
  const one = engine(images);
  const single = await runEval({ ...request, home: join(dir.path, "one") }, { sandbox: one });
  const a = engine(images);
  const b = dyingMidAgent(images, 6);
  const { results } = await runEval(
    { ...request, home: join(dir.path, "two") },
    {
      sandbox: a,
      engines: [{ name: "a", slots: 1, sandbox: a }, { name: "b", slots: 1, sandbox: b }],
    },
  );
  assert.equal(results.run.id, single.results.run.id);
  const outcome = (trial: Results["trials"][number]) =>
    `${trial.task} ${trial.verdict} ${trial.bucket} ${trial.steps}`;
  assert.deepEqual(results.trials.map(outcome), single.results.trials.map(outcome));
  assert.equal(results.retried, undefined, "no attempt is recorded twice");
  let moved = "";
  const stores = [
    openStore(join(dir.path, "two", "verdict.db")),
    openStore(join(dir.path, "one", "verdict.db")),
  ];
  try {
    const [store, alone] = stores;
    const movedTrials = results.trials.filter((trial) =>
      readTrajectory(store, { id: trial.session, task: trial.task, repeat: 0 }).moves
    );
    assert.equal(movedTrials.length, 1, "one trial moved");
    moved = movedTrials[0].session;
    const trajectory = readTrajectory(store, { id: moved, task: movedTrials[0].task, repeat: 0 });
    assert.equal(trajectory.engine, "a");
    assert.deepEqual(trajectory.moves?.map(({ from, to }) => `${from} → ${to}`), ["b → a"]);
    assert.match(trajectory.moves![0].reason, /no Docker engine answers/);
    assert.ok(modelCalls(store, moved) > 1, "it had called the model on b");
    assert.equal(modelCalls(store, moved), modelCalls(alone, moved));
  } finally {
    stores.forEach((store) => store.close());
  }
  const verified = await runVerdictInProcess([
    "verify",
    results.run.id,
    "--home",
    join(dir.path, "two"),
  ]);
  assert.equal(verified.code, 0, verified.stdout + verified.stderr);
  const shown = await runVerdictInProcess(["show", moved, "--home", join(dir.path, "two")]);
  assert.equal(shown.code, 0, shown.stderr);
  assert.match(
    shown.stdout,
    /^engine: a\nmoved from engine b to a, its engine lost: no Docker engine answers/m,
  );
});

// An agent of one's own (no record to follow, no checkpoints) writes the solution and stops on b;
// b stops answering as the seal begins. Its work is gone with b: it starts over on a (the staged
// workspace sealed instead would fail it for b's loss). Grading passes only on the solved file.
Deno.test("an engine lost after the agent stopped, before the seal: the trial starts over on a and passes, never graded on the staged workspace", async () => {
  await using dir = await scratchDir("engines-lost-seal");
  const solution = await Deno.readFile("tasks/shell-count-errors/solution/files/report.sh");
  const solved = ({ script, unpacked, container }: ExecRequest) => {
    if (!script.includes("tests/test.sh")) return {};
    const report = parseTar(unpacked ?? new Uint8Array(1024)).find((entry) =>
      entry.path === "./report.sh"
    );
    const same = report?.type === "file" && report.data.join() === solution.join();
    const line = `verdict-tests passed=${same ? 7 : 0} failed=${same ? 0 : 7} runner=sh\n`;
    container.files.write("/verdict/evidence/tests", line);
    return { exitCode: same ? 0 : 1 };
  };
  const writer: TrialAgent = {
    name: "writer",
    async run({ container }) {
      const file = { path: "workspace/report.sh", type: "file" as const, mode: 0o755 };
      await container.copyIn(packTar([{ ...file, data: solution }], AGENT_OWNER), "/");
      return {
        stopReason: "completed",
        counters: { ...ZERO_COUNTERS },
        tokens: { input: 0, output: 0 },
      };
    },
  };
  const images = {
    "verdict/busybox": [
      { path: "verdict/evidence", type: "dir" as const, mode: 0o755 },
      {
        path: "verdict/evidence/tests",
        type: "file" as const,
        mode: 0o644,
        data: new Uint8Array(),
      },
    ],
  };
  const a = new MemorySandbox({ images, exec: solved });
  let down = false;
  const b = new MemorySandbox({
    images,
    exec: solved,
    fault: (operation) => {
      if (operation.op === "copyOut" || operation.op === "changes") down = true;
      if (down) throw new InfrastructureError("no Docker engine answers: the daemon is stopped");
    },
  });
  const { results } = await runEval(
    {
      paths: ["tasks/shell-count-errors"],
      agent: { agent: writer, needs: { model: false, solutions: false } },
      repeat: 2,
      home: dir.path,
    },
    {
      sandbox: a,
      engines: [{ name: "b", slots: 1, sandbox: b }, { name: "a", slots: 1, sandbox: a }],
    },
  );
  assert.ok(down, "b was lost mid-trial");
  assert.deepEqual(
    results.trials.map((trial) => trial.verdict),
    ["pass", "pass"],
    JSON.stringify(results.trials.map((trial) => trial.reason)),
  );
  assert.equal(results.retried, undefined);
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
  assert.equal(run.status, "interrupted");
});

// Both engines stop answering while the loop agent works on them: the run stops (exit 3) with
// its trials unfinished, and `resume` on an engine that answers finishes it: the trials cut short
// go on from their checkpoints (no call made twice), each counted once, the run verifies.
Deno.test("every engine lost mid-agent, then resume on a healthy engine: each trial ends once, from its checkpoint, with the calls of a one-engine run", async () => {
  await using dir = await scratchDir("engines-all-lost-resume");
  const images = ["verdict/busybox", "verdict/python:3.11"];
  const request = { paths: TASKS, agent: "loop", repeat: 1, seed: 5 };
  const single = await runEval({ ...request, home: join(dir.path, "one") }, {
    sandbox: engine(images),
  });
  const [a, b] = [dyingMidAgent(images, 6), dyingMidAgent(images, 6)];
  const home = join(dir.path, "two");
  await assert.rejects(
    runEval({ ...request, home }, {
      sandbox: a,
      engines: [{ name: "a", slots: 1, sandbox: a }, { name: "b", slots: 1, sandbox: b }],
    }),
    (error: Error) =>
      error instanceof InfrastructureError && /stopped answering/.test(error.message),
  );
  const runId = single.results.run.id;
  const { results } = await resumeEval(home, runId, { sandbox: engine(images) });
  const outcome = (trial: Results["trials"][number]) =>
    `${trial.task} ${trial.verdict} ${trial.bucket} ${trial.steps}`;
  assert.deepEqual(results.trials.map(outcome), single.results.trials.map(outcome));
  assert.equal(results.retried, undefined);
  const stores = [
    openStore(join(home, "verdict.db")),
    openStore(join(dir.path, "one", "verdict.db")),
  ];
  try {
    for (const trial of results.trials) {
      assert.equal(modelCalls(stores[0], trial.session), modelCalls(stores[1], trial.session));
    }
  } finally {
    stores.forEach((store) => store.close());
  }
  const verified = await runVerdictInProcess(["verify", runId, "--home", home]);
  assert.equal(verified.code, 0, verified.stdout + verified.stderr);
});
