/**
 * An installed agent's surroundings, on the in-memory sandbox: the gateway is served and its
 * sidecar started before the agent's container, which joins the sidecar's network with the
 * gateway's environment and the agent's files; all of it goes with the trial.
 */
import { GatewayLedger } from "../../../src/gateway/ledger.ts";
import type { GatewayHandler } from "../../../src/gateway/handler.ts";
import { trialGateways } from "../../../src/eval/setup/gateway_setup.ts";
import assert from "node:assert/strict";
import { join } from "node:path";
import { cmdAgent } from "../../../src/agent/cmd_agent.ts";
import { LogicalClock } from "../../../src/core/clock.ts";
import { systemClock } from "../../../src/core/system_clock.ts";
import { SplitMix64 } from "../../../src/core/rng.ts";
import { trialStartFrom } from "../../../src/eval/run/resume_point.ts";
import { stageTask } from "../../../src/eval/trial/staged_task.ts";
import {
  FROM_THE_BEGINNING,
  type TrialDeps,
  type TrialPlan,
} from "../../../src/eval/trial/trial_plan.ts";
import { runTrial } from "../../../src/eval/trial/trial.ts";
import type { GatewayTrial } from "../../../src/eval/trial/trial_plan.ts";
import { trialDummyKey } from "../../../src/eval/trial/trial_gateway.ts";
import { begin, trialLine } from "../../../src/eval/trial/trial_start.ts";
import { trialScope } from "../../../src/eval/trial/trial_scope.ts";
import { MemorySandbox, type SandboxOperation } from "../../../src/engine/memory_sandbox.ts";
import type { ContainerSpec } from "../../../src/engine/sandbox.ts";
import { storeSnapshot } from "../../../src/workspace/snapshot.ts";
import { all, EVENT, last } from "../../../src/store/event_catalogue.ts";
import { openStore } from "../../../src/store/store.ts";
import { loadTask } from "../../../src/task/load_task.ts";
import { PROJECT_ROOT } from "../../_verdict.ts";

const OWNER = "0123456789abcdef";

// The agent's own folder, copied in when it runs.
const AGENT_FILES = await Deno.makeTempDir({ prefix: "verdict-agent-files-" });
await Deno.writeTextFile(`${AGENT_FILES}/run.sh`, "echo done\n");
globalThis.addEventListener("unload", () => Deno.removeSync(AGENT_FILES, { recursive: true }));

async function fixture(exec?: ConstructorParameters<typeof MemorySandbox>[0]) {
  const store = openStore(":memory:");
  const sandbox = new MemorySandbox(exec);
  store.runs.create({ id: "r1", config: {}, createdAt: 0 });
  store.runs.createSession({ id: "s1", run: "r1", task: "fix-slugify", repeat: 0 });
  const staged = await stageTask(await loadTask(join(PROJECT_ROOT, "tasks/fix-slugify")));
  storeSnapshot(store.blobs, staged.initial);
  const plan: TrialPlan = { run: "r1", session: "s1", staged, repeat: 0 };
  const trials: GatewayTrial[] = [];
  const deps: TrialDeps = {
    store,
    sandbox,
    images: sandbox.derivedImages({ "verdict.run": "r1" }),
    clock: new LogicalClock({ start: 0, tick: 1 }),
    rng: new SplitMix64(5),
    agent: cmdAgent("sh /verdict/agent/run.sh", AGENT_FILES),
    signal: new AbortController().signal,
    owner: OWNER,
    gateway: (trial) => {
      trials.push(trial);
      return Promise.resolve({
        ledger: new GatewayLedger(null),
        handler: () => Promise.resolve(new Response(`key ${trial.key}`)),
      });
    },
  };
  return { store, sandbox, plan, deps, trials };
}

function started(operations: readonly SandboxOperation[]): ContainerSpec[] {
  return operations.flatMap((op) => op.op === "start" ? [op.spec] : []);
}

Deno.test("an installed agent's container joins its gateway sidecar's network, with the dummy key and its files", async () => {
  const fx = await fixture();
  const scope = trialScope(fx.plan, fx.deps, false);
  const begun = await begin(scope, trialLine(FROM_THE_BEGINNING));
  await begun.grader;
  const [sidecar, agent] = started(fx.sandbox.operations);
  assert.equal(sidecar.labels["verdict.role"], "gateway");
  assert.equal(sidecar.labels["verdict.session"], "s1");
  assert.equal(sidecar.labels["verdict.owner"], OWNER);
  assert.equal(sidecar.image, "verdict/python:3.11");
  assert.equal(sidecar.network, "none");
  assert.equal(sidecar.user, "1000:1000");
  assert.equal(sidecar.mounts?.length, 1);
  const folder = sidecar.mounts![0].source;
  assert.deepEqual(sidecar.mounts![0], {
    source: folder,
    target: "/verdict/gateway",
    readOnly: true,
  });
  // The forwarder ran in the sidecar before the agent's container started.
  const forwarder = fx.sandbox.operations.findIndex((op) => op.op === "exec");
  const agentStart = fx.sandbox.operations.findIndex((op) =>
    op.op === "start" && op.spec.labels["verdict.role"] === "agent"
  );
  assert(forwarder !== -1 && forwarder < agentStart);
  const exec = fx.sandbox.operations[forwarder];
  assert(
    exec.op === "exec" && exec.id === begun.container!.spec.network.slice("container:".length),
  );
  assert(exec.op === "exec" && exec.script.startsWith("exec python3 -c "));

  assert.equal(agent.labels["verdict.role"], "agent");
  assert.equal(agent.network, `container:${fx.sandbox.live()[0].id}`);
  const key = trialDummyKey(new SplitMix64(5));
  assert.deepEqual(agent.env, {
    OPENAI_BASE_URL: "http://127.0.0.1:8790/v1",
    ANTHROPIC_BASE_URL: "http://127.0.0.1:8790",
    OPENAI_API_KEY: key,
    ANTHROPIC_API_KEY: key,
  });
  // Its files are copied in when it runs (root's, whatever the host folder's modes), never mounted.
  assert.equal(agent.mounts?.length ?? 0, 0);
  assert.equal(fx.trials.length, 1);
  assert.equal(fx.trials[0].key, key);

  // The gateway answers on the socket the sidecar mounts; it goes with the trial's containers.
  const client = Deno.createHttpClient({
    proxy: { transport: "unix", path: join(folder, "gateway.sock") },
  });
  const answer = await fetch("http://gateway/v1/messages", { client, method: "POST", body: "{}" });
  assert.equal(await answer.text(), `key ${key}`);
  client.close();
  await scope.removeAll();
  assert.equal(fx.sandbox.live().length, 0);
  assert.throws(() => Deno.statSync(folder), Deno.errors.NotFound);
});

Deno.test("Verdict's own agents get no gateway, sidecar or mounts", async () => {
  const fx = await fixture();
  const { nopAgent } = await import("../../../src/agent/nop.ts");
  const scope = trialScope(fx.plan, { ...fx.deps, agent: nopAgent }, false);
  await (await begin(scope, trialLine(FROM_THE_BEGINNING))).grader;
  const specs = started(fx.sandbox.operations);
  assert.deepEqual(specs.map((spec) => spec.labels["verdict.role"]), ["agent", "grader"]);
  assert(specs.every((spec) => spec.network === "none" && spec.mounts === undefined));
  assert.equal(fx.trials.length, 0);
  await scope.removeAll();
});

Deno.test("a forwarder that cannot listen is the infrastructure's fault, and the agent never starts", async () => {
  const fx = await fixture({
    exec: ({ container, script }) =>
      container.spec.labels["verdict.role"] === "gateway" && script.startsWith("exec python3")
        ? { exitCode: 1, stderr: "OSError: [Errno 98] Address already in use\n" }
        : {},
  });
  const { record, cleanup } = await runTrial(fx.plan, fx.deps);
  await cleanup;
  assert.equal(record.bucket, "infrastructure_error");
  assert.match(record.reason, /forwarder.*Address already in use/);
  assert(!started(fx.sandbox.operations).some((spec) => spec.labels["verdict.role"] === "agent"));
  assert.equal(fx.sandbox.live().length, 0);
});

Deno.test("resuming an installed agent's trial removes its old sidecar and starts it over with a new gateway", async () => {
  const fx = await fixture();
  // A process began the trial, then died: its sidecar, agent and grader are left.
  const scope = trialScope(fx.plan, fx.deps, false);
  await (await begin(scope, trialLine(FROM_THE_BEGINNING))).grader;
  const leftovers = await fx.sandbox.findLabelled(["verdict.run=r1", `verdict.owner=${OWNER}`], [
    "verdict.session",
    "verdict.role",
  ]);
  assert.deepEqual(leftovers.map(({ labels }) => labels["verdict.role"]).sort(), [
    "agent",
    "gateway",
    "grader",
  ]);
  const from = await trialStartFrom(fx.plan, fx.store.events.read("s1"), leftovers, {
    sandbox: fx.sandbox,
    owner: OWNER,
    agent: fx.deps.agent,
  });
  assert.equal(fx.sandbox.live().length, 0, "every leftover is removed");
  assert(from.phase === "agent" && from.container === null);
  assert.equal(from.restoreRoot, fx.plan.staged.initial.root);
  const { record, cleanup } = await runTrial(fx.plan, fx.deps, from);
  await cleanup;
  assert.equal(fx.trials.length, 2, "a new gateway for the resumed trial");
  assert.equal(
    last(fx.store.events.read("s1"), EVENT.agentCmd)?.payload.command,
    "sh /verdict/agent/run.sh",
  );
  assert.equal(record.stop_reason, "completed");
  await scope.removeAll();
});

Deno.test("the gateway stops answering when the agent stops: a call made after it (a process it left) is refused and not recorded", async () => {
  let gateway: { handler: GatewayHandler; key: string } | undefined;
  const call = (content: string) =>
    gateway!.handler(
      new Request("http://gateway/v1/chat/completions", {
        method: "POST",
        headers: { authorization: `Bearer ${gateway!.key}` },
        body: JSON.stringify({ model: "m", messages: [{ role: "user", content }] }),
      }),
    );
  const statuses: number[] = [];
  const fx = await fixture({
    exec: async ({ script }) => {
      if (script.includes("run.sh")) statuses.push((await call("while the agent works")).status);
    },
    // The seal stops the agent's container: a daemon's call lands between the agent and the seal.
    fault: async (operation) => {
      if (operation.op === "stop" && statuses.length === 1) {
        const late = await call("after the agent stopped");
        statuses.push(late.status);
        assert.match(await late.text(), /the agent has stopped/);
      }
    },
  });
  const gateways = trialGateways({ kind: "scripted", faults: 0 }, null);
  fx.deps.gateway = async (trial) => {
    const opened = await gateways(trial);
    gateway = { handler: opened.handler, key: trial.key };
    return opened;
  };
  const { record, cleanup } = await runTrial(fx.plan, fx.deps);
  await cleanup;
  assert.deepEqual(statuses, [200, 503], record.reason);
  const events = fx.store.events.read("s1");
  assert.equal(all(events, EVENT.gatewayCall).length, 1, "the late call is not in the record");
  assert.equal(record.steps, 1);
});

/** Trials' gateways forwarding to a loopback OpenAI upstream on `port`, retrying briefly. */
function liveGateways(port: number, maxAttempts: number, requestTimeoutMs?: number) {
  return trialGateways({
    kind: "live",
    upstream: {
      provider: "openai",
      model: "gpt-test",
      baseUrl: `http://127.0.0.1:${port}/v1`,
      apiKey: "sk-test",
    },
    http: {
      clock: systemClock,
      retry: { maxAttempts, maxTotalMs: 5_000, baseDelayMs: 1, maxDelayMs: 1 },
      requestTimeoutMs,
    },
  }, null);
}

/** How a provider fails, and the words the trial's reason must carry for it. */
const PROVIDER_FAULTS: Array<
  [string, (release: AbortSignal) => Response | Promise<Response>, RegExp]
> = [
  [
    "hangs",
    (release) =>
      new Promise((resolve) =>
        release.addEventListener("abort", () => resolve(new Response("late")))
      ),
    /no response within 0\.2 s \(--request-timeout\)/,
  ],
  ["answers 500 past the retries", () => new Response("down", { status: 500 }), /HTTP 500/],
  ["answers 429 past the retries", () => new Response("slow down", { status: 429 }), /HTTP 429/],
  ["cuts the stream", () =>
    new Response(
      new ReadableStream({
        start(controller) {
          controller.enqueue(new TextEncoder().encode('data: {"choices":[]}\n\n'));
          controller.error(new Error("cut"));
        },
      }),
      { headers: { "content-type": "text/event-stream" } },
    ), /connection failed/],
  ["refuses the key (401)", () => new Response("bad key", { status: 401 }), /HTTP 401/],
  [
    "answers malformed JSON",
    () => new Response('{"choices": [', { headers: { "content-type": "application/json" } }),
    /the body is not JSON/,
  ],
  [
    "truncates the stream",
    () =>
      new Response('data: {"choices":[{"delta":{"content":"hi"}}]}\n\n', {
        headers: { "content-type": "text/event-stream" },
      }),
    /stopped before data: \[DONE\]/,
  ],
];

for (const [fault, reply, words] of PROVIDER_FAULTS) {
  Deno.test(`a provider that ${fault} makes a cmd agent's failed trial infrastructure's, naming it`, async () => {
    const release = new AbortController();
    await using upstream = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen() {} },
      () => reply(release.signal),
    );
    let gateway: { handler: GatewayHandler; key: string } | undefined;
    const fx = await fixture({
      exec: async ({ script }) => {
        if (script.includes("/verdict/tests/")) return { exitCode: 1 }; // the tests fail
        if (!script.includes("run.sh")) return {};
        const answer = await gateway!.handler(
          new Request("http://gateway/v1/chat/completions", {
            method: "POST",
            headers: { authorization: `Bearer ${gateway!.key}` },
            body: JSON.stringify({ model: "gpt-test", stream: true, messages: [] }),
          }),
        );
        await answer.body?.cancel();
        return { exitCode: answer.status === 200 ? 0 : 1 };
      },
    });
    const gateways = liveGateways(upstream.addr.port, 2, 200);
    fx.deps.gateway = async (trial) => {
      const opened = await gateways(trial);
      gateway = { handler: opened.handler, key: trial.key };
      return opened;
    };
    try {
      const { record, cleanup } = await runTrial(fx.plan, fx.deps);
      await cleanup;
      assert.equal(record.bucket, "infrastructure_error", record.reason);
      assert.match(record.reason, /^the model provider failed 1 call: /);
      assert.match(record.reason, words);
    } finally {
      release.abort();
    }
  });
}

Deno.test("a call still under way when the agent exits is aborted, and is neither charged nor recorded", async () => {
  const release = new AbortController();
  let upstreamSaw = 0;
  let reached: () => void;
  const upstreamReached = new Promise<void>((resolve) => reached = resolve);
  await using upstream = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () => {
    upstreamSaw++;
    reached();
    return new Promise<Response>((resolve) =>
      release.signal.addEventListener("abort", () => resolve(Response.json({ choices: [] })))
    );
  });
  let gateway: { handler: GatewayHandler; key: string } | undefined;
  let late: Promise<number> | undefined;
  const fx = await fixture({
    exec: async ({ script }) => {
      if (script.includes("/verdict/tests/")) return { exitCode: 1 };
      if (!script.includes("run.sh")) return {};
      // A process the agent started calls the model, and the agent exits without waiting for
      // the answer, once the call is out.
      late = gateway!.handler(
        new Request("http://gateway/v1/chat/completions", {
          method: "POST",
          headers: { authorization: `Bearer ${gateway!.key}` },
          body: JSON.stringify({ model: "gpt-test", messages: [] }),
        }),
      ).then(async (answer) => (await answer.body?.cancel(), answer.status));
      await upstreamReached;
      return {};
    },
  });
  const gateways = liveGateways(upstream.addr.port, 1);
  let ledger: GatewayLedger | undefined;
  fx.deps.gateway = async (trial) => {
    const opened = await gateways(trial);
    gateway = { handler: opened.handler, key: trial.key };
    ledger = opened.ledger;
    return opened;
  };
  try {
    const { record, cleanup } = await runTrial(fx.plan, fx.deps);
    await cleanup;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const waited = new Promise<string>((resolve) => {
      timer = setTimeout(() => resolve("still under way after 2 s"), 2_000);
    });
    const status = await Promise.race([late!, waited]);
    clearTimeout(timer);
    assert.equal(status, 502, "the call was cut when the agent exited");
    assert.equal(upstreamSaw, 1);
    assert.deepEqual(all(fx.store.events.read("s1"), EVENT.gatewayCall), []);
    assert.equal(ledger!.totals.calls, 0);
    assert.equal(record.bucket, "agent_failure", record.reason);
  } finally {
    release.abort();
  }
});
