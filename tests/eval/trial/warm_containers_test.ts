import assert from "node:assert/strict";
import { LogicalClock } from "../../../src/core/clock.ts";
import { InfrastructureError } from "../../../src/core/errors.ts";
import { runEval } from "../../../src/eval/run/run_eval.ts";
import { type ExecHandler, MemorySandbox } from "../../../src/engine/memory_sandbox.ts";
import { SIDECAR_ROLE } from "../../../src/gateway/sidecar.ts";
import { scratchDir } from "../../_verdict.ts";

const failTests: ExecHandler = ({ script }) => ({
  exitCode: script.includes("tests/test.sh") ? 1 : 0,
});

async function evalOnMemory(
  concurrency: number,
  stopAfter?: number,
  request: { paths?: string[]; agent?: string; model?: string; agentFiles?: string } = {},
  exec: ExecHandler = failTests,
) {
  const sandbox = new MemorySandbox({ exec });
  await using home = await scratchDir("warm");
  const controller = new AbortController();
  let finished = 0;
  const outcome = await runEval({
    paths: ["tasks/fix-slugify", "tasks/fix-csv-quoting"],
    agent: "nop",
    ...request,
    repeat: 3,
    concurrency,
    seed: 0,
    home: home.path,
  }, {
    sandbox,
    clock: new LogicalClock(),
    signal: controller.signal,
    progress: {
      runStarted() {},
      trialFinished() {
        if (++finished === stopAfter) controller.abort(new Error("stop"));
      },
    },
  });
  const role = (name: string) =>
    sandbox.containers().filter((c) => c.spec.labels["verdict.role"] === name);
  return { outcome, sandbox, agents: role("agent"), graders: role("grader") };
}

Deno.test("agent containers and graders start ahead of their trials: one each per trial, none left", async () => {
  const { outcome, sandbox, agents, graders } = await evalOnMemory(2);
  assert.equal(outcome.results.trials.length, 6);
  const sessions = agents.map((container) => container.spec.labels["verdict.session"]);
  assert.deepEqual(
    [...sessions].sort(),
    outcome.results.trials.map((trial) => trial.session).sort(),
    "each trial got exactly one agent container, its own",
  );
  assert.ok(agents.every((container) => container.spec.channel === true));
  assert.deepEqual(
    graders.map((container) => container.spec.labels["verdict.session"]).sort(),
    [...sessions].sort(),
    "each trial got exactly one grader (neither task has a canary), its own",
  );
  assert.equal(sandbox.live().length, 0);
});

Deno.test("a trial's grader is running before the trial ahead of it is graded", async () => {
  const { sandbox, graders } = await evalOnMemory(1);
  const ops = sandbox.operations;
  const firstGrading = ops.findIndex((op) => op.op === "exec" && op.id === graders[0].id);
  const secondGraderStart = ops.findIndex((op) =>
    op.op === "start" &&
    op.spec.labels["verdict.session"] === graders[1].spec.labels["verdict.session"] &&
    op.spec.labels["verdict.role"] === "grader"
  );
  assert.ok(firstGrading > 0 && secondGraderStart > 0);
  assert.ok(secondGraderStart < firstGrading, "the next trial's grader was started only after");
  assert.equal(sandbox.live().length, 0);
});

Deno.test("an interrupted run removes the containers started ahead for trials that never began", async () => {
  const { outcome, sandbox, agents } = await evalOnMemory(1, 1);
  const begun = outcome.results.trials.length;
  assert.ok(agents.length > begun, `${agents.length} agent containers for ${begun} trials`);
  assert.equal(sandbox.live().length, 0, "a container started ahead was left behind");
});

Deno.test("a trial that fails before it grades takes its graders started ahead down with it, not at the run's end", async () => {
  let agentStarts = 0;
  const sandbox = new MemorySandbox({
    exec: ({ script }) => ({ exitCode: script.includes("tests/test.sh") ? 1 : 0 }),
    // The second trial's agent container, started ahead (the first start of all: it begins as
    // the first trial is taken), cannot start: that trial fails before it grades.
    fault: (operation) => {
      if (operation.op === "start" && operation.spec.labels["verdict.role"] === "agent") {
        if (++agentStarts === 1) throw new InfrastructureError("the engine lost it");
      }
    },
  });
  await using home = await scratchDir("warm-failed");
  const sessions: string[] = [];
  let leftAtThirdFinish: string[] = [];
  const outcome = await runEval({
    paths: ["tasks/fix-slugify"],
    agent: "nop",
    repeat: 3,
    concurrency: 1,
    seed: 0,
    home: home.path,
  }, {
    sandbox,
    clock: new LogicalClock(),
    signal: new AbortController().signal,
    progress: {
      runStarted() {},
      trialFinished(trial) {
        sessions.push(trial.session);
        if (sessions.length === 3) {
          leftAtThirdFinish = sandbox.live()
            .filter((container) => container.spec.labels["verdict.session"] === sessions[1])
            .map((container) => container.spec.labels["verdict.role"]);
        }
      },
    },
  });
  const failed = outcome.results.trials.find((trial) => trial.session === sessions[1])!;
  assert.equal(failed.bucket, "infrastructure_error", failed.reason);
  assert.deepEqual(leftAtThirdFinish, [], "the failed trial's grader outlived it");
  assert.equal(sandbox.live().length, 0);
});

/**
 * Fails the tests; an agent's own command (the n-th of `trials`) waits, at most 10 s, until the
 * next trial's container has been readied: the memory sandbox's agent takes no time, and a real
 * one works long enough for the containers started ahead of it.
 */
function agentsWaitForTheNext(trials: number): ExecHandler {
  const readied = Array.from({ length: trials }, () => Promise.withResolvers<void>());
  let readyings = 0;
  let runs = 0;
  return async (request) => {
    const { script, user, container } = request;
    const agent = container.spec.labels["verdict.role"] === "agent";
    if (agent && user === "0:0" && script.includes("/tmp/verdict/instruction.md")) {
      readied[readyings++]?.resolve();
    } else if (agent && script.includes("exec sh -c")) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        readied[Math.min(++runs, trials - 1)].promise,
        new Promise((wake) => (timer = setTimeout(wake, 10_000))),
      ]);
      clearTimeout(timer);
    }
    return failTests(request);
  };
}

Deno.test("an installed agent's sidecar and container start a trial ahead, the container in its own trial's sidecar's network and readied once", async () => {
  const { outcome, sandbox } = await evalOnMemory(1, undefined, {
    paths: ["tasks/fix-slugify"],
    agent: "cmd:true",
    model: "scripted",
  }, agentsWaitForTheNext(3));
  assert.equal(outcome.results.trials.length, 3);
  const ops = sandbox.operations;
  const started = (session: string, role: string) =>
    ops.findIndex((op) =>
      op.op === "start" && op.spec.labels["verdict.session"] === session &&
      op.spec.labels["verdict.role"] === role
    );
  const sessions = outcome.results.trials.map((trial) => trial.session);
  const containers = sandbox.containers();
  for (const [index, session] of sessions.entries()) {
    const sidecar = containers.find((c) =>
      c.spec.labels["verdict.session"] === session && c.spec.labels["verdict.role"] === SIDECAR_ROLE
    );
    const agent = containers.find((c) =>
      c.spec.labels["verdict.session"] === session && c.spec.labels["verdict.role"] === "agent"
    );
    assert.ok(sidecar && agent, `trial ${index}: one sidecar, one agent container`);
    assert.equal(agent.spec.network, `container:${sidecar.id}`);
    // The instruction written as root, once: ahead, or by the trial itself (the first).
    const readying = ops.flatMap((op, at) =>
      op.op === "exec" && op.id === agent.id && op.user === "0:0" &&
        op.script.includes("/tmp/verdict/instruction.md")
        ? [at]
        : []
    );
    assert.equal(readying.length, 1, `trial ${index}'s container readied ${readying.length} times`);
    const folder = sidecar.spec.mounts?.[0]?.source ?? "";
    assert.equal(await Deno.stat(folder).then(() => "left", () => "removed"), "removed", folder);
    if (index === 0) continue;
    // Started before the trial ahead of it was graded: off its critical path.
    const gradedBefore = ops.findIndex((op) =>
      op.op === "exec" && op.script.includes("tests/test.sh") &&
      containers.find((c) => c.id === op.id)?.spec.labels["verdict.session"] === sessions[index - 1]
    );
    assert.ok(started(session, SIDECAR_ROLE) < gradedBefore, `trial ${index}'s sidecar`);
    assert.ok(started(session, "agent") < gradedBefore, `trial ${index}'s agent container`);
    assert.ok(readying[0] < gradedBefore, `trial ${index}'s container readied`);
  }
  assert.equal(sandbox.live().length, 0);
});

Deno.test("a cmd: agent with --agent-files readies its container after copying them in, so the folders it dates stay dated", async () => {
  await using files = await scratchDir("warm-agent-files");
  await Deno.writeTextFile(`${files.path}/run.sh`, "true\n");
  const { outcome, sandbox } = await evalOnMemory(1, undefined, {
    paths: ["tasks/fix-slugify"],
    agent: "cmd:true",
    model: "scripted",
    agentFiles: files.path,
  });
  assert.equal(outcome.results.trials.length, 3);
  const agents = sandbox.containers().filter((c) => c.spec.labels["verdict.role"] === "agent");
  for (const agent of agents) {
    const ops = sandbox.operations.flatMap((op, at) =>
      "id" in op && op.id === agent.id ? [{ op, at }] : []
    );
    const copied = ops.findIndex(({ op }) => op.op === "copyIn");
    const readied = ops.findIndex(({ op }) =>
      op.op === "exec" && op.user === "0:0" && op.script.includes("/tmp/verdict/instruction.md")
    );
    assert.ok(
      copied >= 0 && readied > copied,
      `agent ${agent.id.slice(0, 8)}: copy ${copied}, readied ${readied}`,
    );
  }
});
