/**
 * The installed agent (`cmd:COMMAND`) in real trials on Docker: its container has only `lo`,
 * reaches nothing but the gateway's forwarder, reaches the host's handler through the socket with
 * the dummy key (never the real one), fixes a task, is killed at the deadline, and starts over
 * when an interrupted trial is resumed.
 */
import { GatewayLedger } from "../../../src/gateway/ledger.ts";
import assert from "node:assert/strict";
import { join } from "node:path";
import { cmdAgent } from "../../../src/agent/cmd_agent.ts";
import { LogicalClock } from "../../../src/core/clock.ts";
import { SplitMix64 } from "../../../src/core/rng.ts";
import { trialStartFrom } from "../../../src/eval/run/resume_point.ts";
import type { StagedTask } from "../../../src/eval/trial/trial_plan.ts";
import { stageTask } from "../../../src/eval/trial/staged_task.ts";
import {
  FROM_THE_BEGINNING,
  type TrialDeps,
  TrialInterrupted,
  type TrialPlan,
  type TrialStart,
} from "../../../src/eval/trial/trial_plan.ts";
import { runTrial } from "../../../src/eval/trial/trial.ts";
import type { GatewayTrial } from "../../../src/eval/trial/trial_plan.ts";
import { DockerSandbox } from "../../../src/engine/docker_sandbox.ts";
import { storeSnapshot } from "../../../src/workspace/snapshot.ts";
import { EVENT, last } from "../../../src/store/event_catalogue.ts";
import { openStore, type Store } from "../../../src/store/store.ts";
import { loadTask } from "../../../src/task/load_task.ts";
import { requireDocker } from "../../_docker.ts";
import { copyTree, PROJECT_ROOT, scratchDir } from "../../_verdict.ts";

const REAL_KEY = "sk-real-key-that-stays-on-the-host";

// Probes the container, asks the gateway once, then copies the reference fix into the workspace.
const PROBE_AND_FIX = `set -u
echo "interfaces: $(ls /sys/class/net | tr '\\n' ' ')"
python3 - <<'PY'
import json, os, socket, urllib.request
def connects(host, port):
    try:
        socket.create_connection((host, port), timeout=1).close()
        return "connected"
    except OSError as error:
        return "refused: " + type(error).__name__
print("forwarder:", connects("127.0.0.1", 8790))
print("other port:", connects("127.0.0.1", 8791))
print("outside:", connects("1.1.1.1", 80))
request = urllib.request.Request(
    os.environ["OPENAI_BASE_URL"] + "/chat/completions",
    data=b'{"model":"m"}',
    headers={"Authorization": "Bearer " + os.environ["OPENAI_API_KEY"]},
)
print("gateway:", urllib.request.urlopen(request, timeout=10).read().decode())
PY
env | grep -i -e key -e base_url | sort
echo "instruction: $(head -c 40 "$VERDICT_INSTRUCTION_FILE" | tr '\\n' ' ')"
cp -R /verdict/agent/files/. .
echo "agent done" >&2
`;

interface Harness {
  store: Store;
  plan: TrialPlan;
  agentDir: string;
  calls: { path: string; authorized: boolean; body: string }[];
  deps(agentCommand: string, signal?: AbortSignal): TrialDeps;
  cleanup(): Promise<void>;
}

let stagedOnce: StagedTask | undefined;

async function harness(name: string, timeoutS?: number): Promise<Harness> {
  const docker = await requireDocker();
  const sandbox = new DockerSandbox(docker);
  const scratch = await scratchDir(`cmd_agent_${name}`);
  const agentDir = join(scratch.path, "agent");
  stagedOnce ??= await stageTask(await loadTask(join(PROJECT_ROOT, "tasks/fix-slugify")));
  const staged: StagedTask = timeoutS === undefined ? stagedOnce : {
    ...stagedOnce,
    task: {
      ...stagedOnce.task,
      manifest: {
        ...stagedOnce.task.manifest,
        limits: { ...stagedOnce.task.manifest.limits, timeout_s: timeoutS },
      },
    },
  };
  await copyTree(join(PROJECT_ROOT, "tasks/fix-slugify/solution/files"), join(agentDir, "files"));
  await Deno.writeTextFile(join(agentDir, "probe_and_fix.sh"), PROBE_AND_FIX);
  const run = `cmdtest-${name}-${crypto.randomUUID().slice(0, 8)}`;
  const owner = crypto.randomUUID().replaceAll("-", "").slice(0, 16);
  const store = openStore(":memory:");
  store.runs.create({ id: run, config: {}, createdAt: 0 });
  store.runs.createSession({ id: `${run}-s`, run, task: "fix-slugify", repeat: 0 });
  storeSnapshot(store.blobs, staged.initial);
  const plan: TrialPlan = { run, session: `${run}-s`, staged, repeat: 0 };
  const calls: Harness["calls"] = [];
  const gateway = (trial: GatewayTrial) =>
    Promise.resolve({
      ledger: new GatewayLedger(null),
      handler: async (request: Request) => {
        const body = await request.text();
        const authorized = request.headers.get("authorization") === `Bearer ${trial.key}`;
        calls.push({ path: new URL(request.url).pathname, authorized, body });
        return Response.json({ answered: new URL(request.url).pathname, authorized });
      },
    });
  return {
    store,
    plan,
    agentDir,
    calls,
    deps: (command, signal = new AbortController().signal) => ({
      store,
      sandbox,
      images: sandbox.derivedImages({ "verdict.run": run, "verdict.owner": owner }),
      clock: new LogicalClock({ start: 0, tick: 1 }),
      rng: new SplitMix64(7),
      agent: cmdAgent(command, agentDir),
      signal,
      owner,
      gateway,
    }),
    async cleanup() {
      const left = await sandbox.findLabelled([`verdict.run=${run}`]);
      await sandbox.removeContainers(left.map(({ id }) => id));
      await scratch[Symbol.asyncDispose]();
    },
  };
}

function agentCmd(store: Store, session: string) {
  return last(store.events.read(session), EVENT.agentCmd)?.payload;
}

Deno.test("a cmd agent's container has only lo, reaches only the gateway, holds only the dummy key, and fixes the task", async () => {
  const previous = Deno.env.get("OPENAI_API_KEY");
  Deno.env.set("OPENAI_API_KEY", REAL_KEY);
  const h = await harness("probe");
  try {
    const { record, cleanup } = await runTrial(
      h.plan,
      h.deps("sh /verdict/agent/probe_and_fix.sh"),
    );
    await cleanup;
    const cmd = agentCmd(h.store, h.plan.session)!;
    assert.equal(cmd.exit_code, 0, cmd.stderr);
    const lines = cmd.stdout.split("\n");
    assert(lines.includes("interfaces: lo "), cmd.stdout);
    assert(lines.includes("forwarder: connected"), cmd.stdout);
    assert.match(cmd.stdout, /^other port: refused: ConnectionRefusedError$/m);
    assert.match(cmd.stdout, /^outside: refused: /m);
    assert(
      lines.includes('gateway: {"answered":"/v1/chat/completions","authorized":true}'),
      cmd.stdout,
    );
    assert.deepEqual(h.calls, [{
      path: "/v1/chat/completions",
      authorized: true,
      body: '{"model":"m"}',
    }]);
    assert.match(cmd.stdout, /^OPENAI_API_KEY=verdict-dummy-[0-9a-f]{32}$/m);
    assert.match(cmd.stdout, /^ANTHROPIC_API_KEY=verdict-dummy-[0-9a-f]{32}$/m);
    assert.match(cmd.stdout, /^OPENAI_BASE_URL=http:\/\/127\.0\.0\.1:8790\/v1$/m);
    assert.match(cmd.stdout, /^ANTHROPIC_BASE_URL=http:\/\/127\.0\.0\.1:8790$/m);
    assert(!cmd.stdout.includes(REAL_KEY), "the real key never reaches the container");
    assert.match(cmd.stdout, /^instruction: \S/m);
    assert.equal(cmd.stderr, "agent done\n");
    assert.equal(record.stop_reason, "completed");
    assert.equal(record.verdict, "pass", record.reason);
    // The trial's sidecar went with its other containers.
    assert.deepEqual(await h.deps("true").sandbox.findLabelled([`verdict.run=${h.plan.run}`]), []);
  } finally {
    if (previous === undefined) Deno.env.delete("OPENAI_API_KEY");
    else Deno.env.set("OPENAI_API_KEY", previous);
    await h.cleanup();
  }
});

Deno.test("a cmd agent past the task's deadline is killed with everything it started: stop reason timeout", async () => {
  const h = await harness("deadline", 3);
  try {
    const started = performance.now();
    const { record, cleanup } = await runTrial(
      h.plan,
      h.deps("echo working; sleep 60 & sleep 60; echo never"),
    );
    await cleanup;
    assert(performance.now() - started < 40_000, "the deadline, not the sleeps, ended it");
    const cmd = agentCmd(h.store, h.plan.session)!;
    assert.equal(cmd.timed_out, true);
    assert.equal(cmd.stdout, "working\n");
    assert.equal(record.stop_reason, "timeout");
    assert.equal(record.verdict, "fail");
  } finally {
    await h.cleanup();
  }
});

Deno.test("an interrupted cmd-agent trial is resumed from its initial state, with a new gateway", async () => {
  const h = await harness("resume");
  // The first run waits (until interrupted); once `go` exists, the agent fixes the task.
  const command =
    "if [ -f /verdict/agent/go ]; then cp -R /verdict/agent/files/. .; echo fixed; else echo waiting; sleep 60; fi";
  try {
    const interrupt = new AbortController();
    const running = runTrial(h.plan, h.deps(command, interrupt.signal));
    // Interrupt once the agent's container is up (its command is then running).
    const sandbox = h.deps(command).sandbox;
    for (let i = 0; i < 200; i++) {
      const agents = await sandbox.findLabelled([
        `verdict.run=${h.plan.run}`,
        "verdict.role=agent",
      ]);
      if (agents.some(({ state }) => state === "running")) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await new Promise((resolve) => setTimeout(resolve, 1000));
    interrupt.abort(new Error("interrupted"));
    await assert.rejects(running, TrialInterrupted);
    assert.equal(agentCmd(h.store, h.plan.session), undefined, "the agent never finished");

    await Deno.writeTextFile(join(h.agentDir, "go"), "");
    const deps = h.deps(command);
    const leftovers = await sandbox.findLabelled(
      [`verdict.run=${h.plan.run}`, `verdict.owner=${deps.owner}`],
      ["verdict.session", "verdict.role"],
    );
    const from: TrialStart = await trialStartFrom(
      h.plan,
      h.store.events.read(h.plan.session),
      leftovers,
      { sandbox, owner: deps.owner, agent: deps.agent },
    );
    assert.equal(from.phase, "agent");
    const { record, cleanup } = await runTrial(h.plan, deps, from);
    await cleanup;
    const resumed = last(h.store.events.read(h.plan.session), EVENT.trialResumed)!.payload;
    assert.deepEqual(resumed, {
      phase: "agent",
      container: "restored",
      root: h.plan.staged.initial.root,
    });
    assert.equal(agentCmd(h.store, h.plan.session)?.stdout, "fixed\n");
    assert.equal(record.verdict, "pass", record.reason);
  } finally {
    await h.cleanup();
  }
});

Deno.test("a cmd agent's trial without a gateway is an infrastructure error", async () => {
  const h = await harness("no_gateway");
  try {
    const deps = { ...h.deps("true"), gateway: undefined };
    const { record, cleanup } = await runTrial(h.plan, deps, FROM_THE_BEGINNING);
    await cleanup;
    assert.equal(record.bucket, "infrastructure_error");
    assert.match(record.reason, /reaches a model through the gateway, but this run has none/);
  } finally {
    await h.cleanup();
  }
});
