/**
 * The library as a user scripts it, through the package's own entry points only: an agent and a
 * model backend of the script's own, written with the public types, run on the bundled suite in
 * Docker; and the sweep example of docs/library.md, run as a user runs it.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  compareEvals,
  Docker,
  DockerSandbox,
  evalStats,
  loopWithModel,
  type Model,
  replayEval,
  runSweep,
  type TrialAgent,
  verifyEval,
} from "@verdict/verdict";
import { type ModelRequest, type ModelResponse, ZERO_COUNTERS } from "@verdict/verdict/agents";
import { dockerEnv, requireDocker } from "./_docker.ts";
import { PROJECT_ROOT, scratchDir } from "./_verdict.ts";

/** An agent of the script's own: it looks at the workspace, leaves a note, and stops. */
const noteTaker: TrialAgent = {
  name: "note-taker",
  async run({ container, timeoutMs, signal }) {
    const listed = await container.exec("ls", { timeoutMs, signal });
    const noted = await container.exec(
      `echo '${listed.stdout.split("\n").length} entries' > NOTES`,
      {
        timeoutMs,
        signal,
      },
    );
    return {
      stopReason: noted.exitCode === 0 ? "completed" : "error",
      counters: { ...ZERO_COUNTERS, finished: noted.exitCode === 0 },
      tokens: { input: 0, output: 0 },
    };
  },
};

/** A model backend of the script's own: it lists the workspace with the shell, then finishes. */
const lister: Model = {
  spec: "lister",
  remote: false,
  complete(request: ModelRequest): Promise<ModelResponse> {
    const listed = request.messages.some((message) => message.role === "tool");
    const call = listed
      ? { id: "call-2", name: "finish", arguments: JSON.stringify({ summary: "listed it" }) }
      : { id: "call-1", name: "shell", arguments: JSON.stringify({ command: "ls -la" }) };
    return Promise.resolve({
      content: "",
      toolCalls: [call],
      finish: "tool_calls",
      usage: { input: 100, cachedInput: 0, output: 10 },
    });
  },
};

// Two busybox tasks of the bundled suite: what is shown is the library's, not the tasks'.
const TASKS = ["shell-count-errors", "shell-rotate-logs"];

Deno.test("a script's own agent and own model backend run on the bundled suite, recorded and verifiable", async () => {
  await requireDocker();
  await using home = await scratchDir("library");
  const { runs } = await runSweep(
    {
      paths: ["tasks"],
      tasks: TASKS,
      agents: [{ agent: noteTaker }, loopWithModel(lister)],
      concurrency: 2,
      home: home.path,
    },
    { sandbox: new DockerSandbox(new Docker(dockerEnv())) },
  );
  assert.deepEqual(
    runs.map(({ results }) => [results.run.agent, results.run.model]),
    [["note-taker", null], ["loop", "lister"]],
  );
  for (const { run, results } of runs) {
    // Every trial got a verdict: the agents fixed nothing, and nothing broke.
    assert.deepEqual(results.trials.map((trial) => trial.task), TASKS.toSorted());
    assert(
      results.trials.every((trial) => trial.bucket === "agent_failure"),
      JSON.stringify(results.trials),
    );
    assert((await verifyEval(home.path, run.id)).intact);
    assert.equal(evalStats(home.path, run.id).overall.n, TASKS.length);
  }
  const [own, looped] = runs.map(({ results }) => results.trials);
  assert(own.every((trial) => trial.steps === 0 && trial.stop_reason === "completed"));
  assert(looped.every((trial) => trial.steps === 2 && trial.tool_calls === 2));
  assert(looped.every((trial) => trial.tokens.input === 200 && trial.cost_usd === null));
  // The agent of the script's own records no model step: nothing to replay.
  const replayed = await replayEval(home.path, runs[0].run.id);
  assert(replayed.every((session) => session.status === "skipped"));
  const comparison = compareEvals(home.path, runs[0].run.id, runs[1].run.id);
  assert(comparison.comparable && comparison.flips.length === 0);
});

Deno.test("docs/examples/sweep.ts sweeps two agents over a task and compares them", async () => {
  await requireDocker();
  await using home = await scratchDir("sweep_example");
  const output = await new Deno.Command("deno", {
    args: ["run", "-P=verdict", "--quiet", join("docs", "examples", "sweep.ts"), home.path],
    cwd: PROJECT_ROOT,
    clearEnv: true,
    env: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", HOME: Deno.env.get("HOME") ?? "/root" },
  }).output();
  const [stdout, stderr] = [output.stdout, output.stderr].map((bytes) =>
    new TextDecoder().decode(bytes)
  );
  assert.equal(output.code, 0, stdout + stderr);
  const lines = stdout.trim().split("\n");
  assert.match(lines[0], /^run \w+: nop passed 0 of 2$/);
  assert.match(lines[1], /^run \w+: oracle passed 2 of 2$/);
  assert.equal(lines[2], "2 fail→pass, 0 pass→fail, p = 0.500");
});
