/**
 * The trial's phases driven without Docker, on the in-memory sandbox: a fresh trial end to end,
 * each failure a phase can meet, and resume from each phase after a process died there (its
 * containers left behind, its log cut where it stopped).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { Agent, AgentOutcome } from "../../../src/agent/agent.ts";
import { LogicalClock } from "../../../src/core/clock.ts";
import { InfrastructureError } from "../../../src/core/errors.ts";
import { SplitMix64 } from "../../../src/core/rng.ts";
import { MemorySandbox, type SandboxOperation } from "../../../src/engine/memory_sandbox.ts";
import type { ExecHandler } from "../../../src/engine/memory_sandbox.ts";
import { storeSnapshot } from "../../../src/workspace/snapshot.ts";
import { EVENT, last } from "../../../src/store/event_catalogue.ts";
import { ZERO_COUNTERS } from "../../../src/store/run_counters.ts";
import { openStore, type Store } from "../../../src/store/store.ts";
import { loadTask } from "../../../src/task/load_task.ts";
import { type ResumeContext, trialStartFrom } from "../../../src/eval/run/resume_point.ts";
import type { StagedTask } from "../../../src/eval/trial/trial_plan.ts";
import { stageTask } from "../../../src/eval/trial/staged_task.ts";
import {
  FROM_THE_BEGINNING,
  type TrialDeps,
  TrialInterrupted,
  type TrialPlan,
} from "../../../src/eval/trial/trial_plan.ts";
import { runTrial } from "../../../src/eval/trial/trial.ts";
import { begin, trialLine } from "../../../src/eval/trial/trial_start.ts";
import { trialScope } from "../../../src/eval/trial/trial_scope.ts";
import { PROJECT_ROOT } from "../../_verdict.ts";

const SLUG = "/workspace/textkit/slug.py";
const FIXED = "# fixed by the agent\n";
const OWNER = "0123456789abcdef";

/** An agent that fixes the file (in the container's memory) and stops. */
function fixingAgent(sandbox: MemorySandbox, onRun?: () => void): Agent {
  return {
    name: "fixer",
    run(context): Promise<AgentOutcome> {
      onRun?.();
      sandbox.container(context.container.id)!.files.write(SLUG, FIXED);
      return Promise.resolve({
        stopReason: "completed",
        counters: { ...ZERO_COUNTERS, steps: 1, finished: true },
        tokens: { input: 3, output: 4 },
      });
    },
  };
}

/** The success script passes when the grader's copy of the workspace holds the fix. */
// The success script: passes when the slug is fixed, and reports its tests as pytest would.
const grading: ExecHandler = ({ container, unpacked }) => {
  if (!unpacked) return {};
  if (container.files.text(SLUG) !== FIXED) return { exitCode: 1 };
  container.files.write("/verdict/evidence/tests", "verdict-tests passed=99 failed=0\n");
  return { exitCode: 0 };
};

let stagedOnce: StagedTask | undefined;
async function staged(): Promise<StagedTask> {
  stagedOnce ??= await stageTask(await loadTask(join(PROJECT_ROOT, "tasks/fix-slugify")));
  return stagedOnce;
}

interface Fixture {
  store: Store;
  sandbox: MemorySandbox;
  plan: TrialPlan;
  deps: (overrides?: Partial<TrialDeps>) => TrialDeps;
}

async function fixture(
  options: { exec?: ExecHandler; fault?: (operation: SandboxOperation) => void } = {},
): Promise<Fixture> {
  const store = openStore(":memory:");
  const sandbox = new MemorySandbox({ exec: options.exec ?? grading, fault: options.fault });
  store.runs.create({ id: "r1", config: {}, createdAt: 0 });
  store.runs.createSession({ id: "s1", run: "r1", task: "fix-slugify", repeat: 0 });
  const plan: TrialPlan = { run: "r1", session: "s1", staged: await staged(), repeat: 0 };
  storeSnapshot(store.blobs, plan.staged.initial); // as the run's pool does before any trial
  const deps = (overrides: Partial<TrialDeps> = {}): TrialDeps => ({
    store,
    sandbox,
    images: sandbox.derivedImages({ "verdict.run": "r1" }),
    clock: new LogicalClock({ start: 0, tick: 1 }),
    rng: new SplitMix64(1),
    agent: fixingAgent(sandbox),
    signal: new AbortController().signal,
    owner: OWNER,
    ...overrides,
  });
  return { store, sandbox, plan, deps };
}

function kinds(store: Store): string[] {
  return store.events.read("s1").map((event) => event.kind);
}

/** The trial's containers as the dead process left them, as resume lists them. */
function leftovers(sandbox: MemorySandbox) {
  return sandbox.findLabelled([`verdict.run=r1`, `verdict.owner=${OWNER}`], [
    "verdict.session",
    "verdict.role",
  ]);
}

function starts(sandbox: MemorySandbox): string[] {
  return sandbox.operations.filter((op) => op.op === "start").map((op) =>
    op.op === "start" ? op.spec.labels["verdict.role"] : ""
  );
}

/**
 * A process that ran the trial's phases through `through` and died there: its containers are
 * left as they were, its log ends where it stopped.
 */
async function dieAfter(fx: Fixture, through: "begin" | "agent" | "seal") {
  const scope = trialScope(fx.plan, fx.deps(), false);
  const line = trialLine(FROM_THE_BEGINNING);
  const begun = await begin(scope, line);
  const grader = await begun.grader;
  if (through !== "begin") await line.agent(scope, begun);
  const sealed = through === "seal" ? await line.endState(scope, begun) : undefined;
  return { agent: begun.container!, grader, sealed };
}

/** Where resume picks the trial up, from its log and the containers the dead process left. */
async function resumePointOf(fx: Fixture, context: Partial<ResumeContext> = {}) {
  return trialStartFrom(fx.plan, fx.store.events.read("s1"), await leftovers(fx.sandbox), {
    sandbox: fx.sandbox,
    owner: OWNER,
    agent: fixingAgent(fx.sandbox),
    ...context,
  });
}

Deno.test("a fresh trial goes begin, agent, seal, grade, finish, and removes every container", async () => {
  const { store, sandbox, plan, deps } = await fixture();
  const { record, cleanup } = await runTrial(plan, deps(), FROM_THE_BEGINNING);
  await cleanup;
  assert.equal(record.verdict, "pass", record.reason);
  assert.equal(record.stop_reason, "completed");
  assert.equal(record.changed_paths, 1);
  assert.deepEqual(kinds(store), [
    EVENT.trialStarted,
    EVENT.workspaceStaged,
    EVENT.agentStopped,
    EVENT.endStateSealed,
    EVENT.gradingFinished,
    EVENT.trialVerdict,
  ]);
  assert.equal(store.runs.session("s1")?.status, "finished");
  assert.deepEqual(starts(sandbox), ["agent", "grader"]);
  assert.equal(sandbox.live().length, 0);
  const sealed = last(store.events.read("s1"), EVENT.endStateSealed)!;
  assert.deepEqual(sealed.payload.changes, [
    { path: "textkit/slug.py", change: "modified", aspects: ["content"] },
  ]);
});

Deno.test("an agent that leaves the bug in fails as the agent's failure", async () => {
  const { sandbox, plan, deps } = await fixture();
  const idle: Agent = {
    name: "idle",
    run: () =>
      Promise.resolve({
        stopReason: "completed",
        counters: ZERO_COUNTERS,
        tokens: { input: 0, output: 0 },
      }),
  };
  const { record, cleanup } = await runTrial(plan, deps({ agent: idle }));
  await cleanup;
  assert.equal(record.verdict, "fail");
  assert.equal(record.bucket, "agent_failure");
  assert.equal(sandbox.live().length, 0);
});

Deno.test("an engine that cannot start the agent's container is infrastructure's fault, recorded", async () => {
  const { store, sandbox, plan, deps } = await fixture({
    fault: (operation) => {
      if (operation.op === "start" && operation.spec.labels["verdict.role"] === "agent") {
        throw new InfrastructureError("docker run failed: no space left on device");
      }
    },
  });
  const { record, cleanup } = await runTrial(plan, deps());
  await cleanup;
  assert.equal(record.bucket, "infrastructure_error");
  assert.match(record.reason, /no space left on device/);
  assert.equal(record.stop_reason, null);
  assert.deepEqual(kinds(store), [EVENT.trialStarted, EVENT.trialVerdict]);
  assert.equal(sandbox.live().length, 0);
});

Deno.test("a seal the engine fails keeps how the agent ended and blames infrastructure", async () => {
  const { sandbox, plan, deps } = await fixture({
    fault: (operation) => {
      if (operation.op === "copyOut") throw new InfrastructureError("docker cp: container gone");
    },
  });
  const { record, cleanup } = await runTrial(plan, deps());
  await cleanup;
  assert.equal(record.bucket, "infrastructure_error");
  assert.equal(record.stop_reason, "completed");
  assert.equal(record.steps, 1);
  assert.equal(record.end_state_root, null);
  assert.equal(sandbox.live().length, 0);
});

Deno.test("a bug in the harness while grading is an evaluator error, not the agent's", async () => {
  const { plan, deps } = await fixture({
    exec: ({ unpacked }) => {
      if (unpacked) throw new TypeError("undefined is not a function");
    },
  });
  const { record, cleanup } = await runTrial(plan, deps());
  await cleanup;
  assert.equal(record.bucket, "evaluator_error");
  assert.match(record.reason, /^the harness failed: undefined is not a function/);
});

Deno.test("an interrupt leaves the session unfinished with no verdict and no container", async () => {
  const { store, sandbox, plan, deps } = await fixture();
  const interrupt = new AbortController();
  const agent = fixingAgent(sandbox, () => interrupt.abort());
  await assert.rejects(runTrial(plan, deps({ agent, signal: interrupt.signal })), TrialInterrupted);
  assert.equal(store.runs.session("s1")?.status, "running");
  assert.ok(!kinds(store).includes(EVENT.trialVerdict));
  assert.equal(sandbox.live().length, 0);
});

Deno.test("resumed in the agent phase with no record to follow (oracle, nop): it starts over", async () => {
  const fx = await fixture();
  await dieAfter(fx, "begin");
  assert.equal((await leftovers(fx.sandbox)).length, 2); // the agent's and the grader
  const from = await resumePointOf(fx);
  assert.equal(from.phase, "agent");
  const { record, cleanup } = await runTrial(fx.plan, fx.deps(), from);
  await cleanup;
  assert.equal(record.verdict, "pass", record.reason);
  assert.deepEqual(last(fx.store.events.read("s1"), EVENT.trialResumed)!.payload, {
    phase: "agent",
    container: "restored",
    root: fx.plan.staged.initial.root,
  });
  assert.equal(fx.sandbox.live().length, 0);
});

Deno.test("resumed in the agent phase with a record to follow: the container that survived is reused", async () => {
  const fx = await fixture();
  const dead = await dieAfter(fx, "begin");
  let followedFrom = -1;
  const from = await resumePointOf(fx, {
    follow: (driver) => {
      followedFrom = driver.recordedSteps;
      return fixingAgent(fx.sandbox);
    },
  });
  assert.equal(from.phase, "agent");
  assert.equal(followedFrom, 0);
  const { record, cleanup } = await runTrial(fx.plan, fx.deps(), from);
  await cleanup;
  assert.equal(record.verdict, "pass", record.reason);
  assert.deepEqual(last(fx.store.events.read("s1"), EVENT.trialResumed)!.payload, {
    phase: "agent",
    container: "reused",
    root: fx.plan.staged.initial.root,
  });
  // The agent's container carried on (removed only with the finished trial's others); the old
  // grader went before the resumed trial began.
  const removals = fx.sandbox.operations.filter((op) => op.op === "removeContainers");
  assert.ok(removals.some((op) => op.op === "removeContainers" && op.ids.includes(dead.grader.id)));
  assert.ok(!removals.some((op) => op.op === "removeContainers" && op.ids.includes(dead.agent.id)));
  assert.equal(fx.sandbox.live().length, 0);
});

Deno.test("resumed in the agent phase with the container gone: a new one restored from the snapshot", async () => {
  const fx = await fixture();
  const dead = await dieAfter(fx, "begin");
  fx.sandbox.vanish(dead.agent.id);
  const from = await resumePointOf(fx, { follow: () => fixingAgent(fx.sandbox) });
  const { record, cleanup } = await runTrial(fx.plan, fx.deps(), from);
  await cleanup;
  assert.equal(record.verdict, "pass", record.reason);
  const resumed = last(fx.store.events.read("s1"), EVENT.trialResumed)!;
  assert.equal(resumed.payload.phase === "agent" && resumed.payload.container, "restored");
  // The restored container holds the staged workspace, copied in.
  assert.ok(fx.sandbox.operations.some((op) => op.op === "copyIn" && op.destination === "/"));
});

Deno.test("resumed in the seal phase: the agent is not run again, its stopped container is sealed", async () => {
  const fx = await fixture();
  const dead = await dieAfter(fx, "agent");
  await dead.agent.stop();
  let ranAgain = false;
  const from = await resumePointOf(fx, { agent: fixingAgent(fx.sandbox, () => ranAgain = true) });
  assert.equal(from.phase, "seal");
  assert.equal(from.phase === "seal" && from.outcome.counters.resumed, true);
  const { record, cleanup } = await runTrial(fx.plan, fx.deps(), from);
  await cleanup;
  assert.ok(!ranAgain);
  assert.equal(record.verdict, "pass", record.reason);
  assert.equal(record.steps, 1);
  assert.equal(kinds(fx.store).filter((kind) => kind === EVENT.agentStopped).length, 1);
  assert.equal(fx.sandbox.live().length, 0);
});

// An agent without a record to follow keeps no checkpoint of its work: with its container gone
// before the seal, the staged workspace graded in its place would blame it for the loss.
Deno.test("the agent stopped, its container gone before the seal: an agent without checkpoints starts over and passes", async () => {
  const fx = await fixture();
  const dead = await dieAfter(fx, "agent");
  fx.sandbox.vanish(dead.agent.id);
  let ranAgain = false;
  const from = await resumePointOf(fx, { agent: fixingAgent(fx.sandbox, () => ranAgain = true) });
  assert.equal(from.phase, "agent");
  const { record, cleanup } = await runTrial(fx.plan, fx.deps(), from);
  await cleanup;
  assert.ok(ranAgain);
  assert.equal(record.verdict, "pass", record.reason);
  assert.notEqual(record.end_state_root, fx.plan.staged.initial.root);
});

// The loop agent checkpoints after every tool result: its last one is its end state.
Deno.test("the agent stopped, its container gone before the seal: an agent that follows its record is sealed from its last checkpoint", async () => {
  const fx = await fixture();
  const dead = await dieAfter(fx, "agent");
  fx.sandbox.vanish(dead.agent.id);
  const from = await resumePointOf(fx, { follow: () => fixingAgent(fx.sandbox) });
  assert.equal(from.phase === "seal" && from.container, null);
  assert.equal(from.phase === "seal" && from.restoreRoot, fx.plan.staged.initial.root);
});

Deno.test("resumed in the grade phase: the sealed state is graded in fresh graders, leftovers removed", async () => {
  const fx = await fixture();
  const dead = await dieAfter(fx, "seal");
  const from = await resumePointOf(fx);
  assert.equal(from.phase, "grade");
  assert.equal(
    fx.sandbox.live().length,
    0,
    "the old grader and the sealed agent container are gone",
  );
  const { record, cleanup } = await runTrial(fx.plan, fx.deps(), from);
  await cleanup;
  assert.equal(record.verdict, "pass", record.reason);
  assert.equal(record.end_state_root, dead.sealed!.final.root);
  assert.equal(record.changed_paths, 1);
  const graded = fx.sandbox.operations.filter((op) => op.op === "exec" && op.unpack);
  assert.ok(
    graded.length > 0 && graded.every((op) => op.op === "exec" && op.id !== dead.grader.id),
  );
  assert.equal(kinds(fx.store).filter((kind) => kind === EVENT.endStateSealed).length, 1);
});

Deno.test("a trial whose log is empty begins anew, its leftovers removed", async () => {
  const { store, sandbox, plan, deps } = await fixture();
  const stray = await sandbox.start({
    image: "verdict/python:3.11",
    workdir: "/workspace",
    network: "none",
    labels: {
      "verdict.run": "r1",
      "verdict.owner": OWNER,
      "verdict.session": "s1",
      "verdict.role": "agent",
    },
  });
  const from = await trialStartFrom(plan, [], await leftovers(sandbox), {
    sandbox,
    owner: OWNER,
    agent: fixingAgent(sandbox),
  });
  assert.equal(from.phase, "begin");
  assert.equal(sandbox.container(stray.id)?.state ?? "removed", "removed");
  const { record, cleanup } = await runTrial(plan, deps(), from);
  await cleanup;
  assert.equal(record.verdict, "pass");
  assert.equal(kinds(store)[0], EVENT.trialStarted);
});
