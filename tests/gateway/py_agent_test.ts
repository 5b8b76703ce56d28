import assert from "node:assert/strict";
import { join } from "node:path";
import { gatewayHandler } from "../../src/gateway/handler.ts";
import { modelBackend } from "../../src/gateway/model_backend.ts";
import { scriptedAgentModel } from "../../src/gateway/scripted_agent_model.ts";
import { SplitMix64 } from "../../src/core/rng.ts";
import { heuristicCounter } from "../../src/model/tokens.ts";
import { loadTask } from "../../src/task/load_task.ts";
import type { Task } from "../../src/task/task.ts";
import { copyTree, PROJECT_ROOT, scratchDir } from "../_verdict.ts";

const AGENT = join(PROJECT_ROOT, "tests/fixtures/agents/py_agent/agent.py");
const KEY = "verdict-dummy-key-py-agent";

const SHELL_TASKS = ["shell-count-errors", "shell-fix-backup", "shell-rotate-logs"];

interface AgentRun {
  code: number;
  stdout: string;
  calls: number;
  /** Input and output tokens of every answer, as the gateway records them. */
  tokens: number;
}

/**
 * Runs agent.py in `work` against a loopback gateway answered by the scripted agent model; the
 * gateway expects `gatewayKey` (the agent is always given {@linkcode KEY}).
 */
async function runAgent(
  task: Task,
  work: string,
  instructionFile: string,
  gatewayKey = KEY,
): Promise<AgentRun> {
  const model = await scriptedAgentModel({
    task,
    rng: new SplitMix64(0).stream(`trial/${task.id}/0`).stream("model"),
    faults: 0,
    counter: heuristicCounter,
  });
  let calls = 0;
  let tokens = 0;
  const handler = gatewayHandler({
    backend: modelBackend(model),
    key: gatewayKey,
    onExchange: (_call, answer) => {
      calls++;
      tokens += (answer.usage?.input ?? 0) + (answer.usage?.output ?? 0);
    },
  });
  await using server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    (request) => handler(request),
  );
  const output = await new Deno.Command("python3", {
    args: [AGENT],
    cwd: work,
    env: {
      OPENAI_BASE_URL: `http://127.0.0.1:${server.addr.port}/v1`,
      OPENAI_API_KEY: KEY,
      VERDICT_INSTRUCTION_FILE: instructionFile,
      PYTHONDONTWRITEBYTECODE: "1",
    },
  }).output();
  return {
    code: output.code,
    stdout: new TextDecoder().decode(output.stdout) + new TextDecoder().decode(output.stderr),
    calls,
    tokens,
  };
}

async function prepare(
  id: string,
  scratch: string,
): Promise<{ task: Task; work: string; instruction: string }> {
  const task = await loadTask(join(PROJECT_ROOT, "tasks", id));
  const work = join(scratch, id, "work");
  await copyTree(join(task.dir, "workspace"), work);
  const instruction = join(scratch, id, "instruction.md");
  await Deno.writeTextFile(instruction, task.instruction);
  return { task, work, instruction };
}

Deno.test("the Python agent writes the solution of the shell tasks", async () => {
  await using scratch = await scratchDir("py-agent-shell");
  for (const id of SHELL_TASKS) {
    const { task, work, instruction } = await prepare(id, scratch.path);
    const run = await runAgent(task, work, instruction);
    assert.equal(run.code, 0, `${id}: ${run.stdout}`);
    for await (const entry of Deno.readDir(join(task.dir, "solution/files"))) {
      assert.equal(
        await Deno.readTextFile(join(work, entry.name)),
        await Deno.readTextFile(join(task.dir, "solution/files", entry.name)),
        `${id}: ${entry.name}`,
      );
    }
  }
});

Deno.test("the Python agent stops with exit 1 when the gateway refuses its key", async () => {
  await using scratch = await scratchDir("py-agent-key");
  const { task, work, instruction } = await prepare("fix-slugify", scratch.path);
  const run = await runAgent(task, work, instruction, "another-key");
  assert.equal(run.code, 1);
  assert.match(run.stdout, /step 1: the model refused: HTTP 401/);
});
