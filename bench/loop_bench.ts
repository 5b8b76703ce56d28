/**
 * The loop's own overhead per step, model and tool time excluded: an instant model and an instant
 * tool drive 200 steps against a real SQLite event log; the figure is the mean wall time of the
 * steps taken while the history holds 200 to 400 messages. Run: `deno task bench`.
 *
 * @module
 */
import { join } from "node:path";
import { z } from "zod";
import { loopAgent } from "../src/agent/loop_agent.ts";
import { LogicalClock } from "../src/core/clock.ts";
import { SplitMix64 } from "../src/core/rng.ts";
import type { Model, ModelResponse } from "../src/model/model.ts";
import { heuristicCounter } from "../src/model/tokens.ts";
import { DEFAULT_POLICY } from "../src/policy/default_policy.ts";
import type { Container } from "../src/sandbox/container.ts";
import { openStore } from "../src/store/store.ts";
import type { Task } from "../src/task/task.ts";
import { finishTool } from "../src/tools/finish_tool.ts";
import type { AnyTool } from "../src/tools/tool.ts";
import { scratchFolder } from "./_measure.ts";

const STEPS = 200;
const MEASURED_FROM = 100; // from step 100 on, the history holds at least 200 messages

const readTool: AnyTool = {
  schema: {
    name: "read_file",
    description: "read",
    parameters: { type: "object", properties: { path: { type: "string" } } },
  },
  idempotent: true,
  args: z.strictObject({ path: z.string() }),
  run: (args: { path: string }) =>
    Promise.resolve({ content: `contents of ${args.path}\n`.repeat(8), isError: false }),
};

const stepStarts: number[] = [];
const model: Model = {
  spec: "instant",
  remote: false,
  complete(request) {
    stepStarts.push(performance.now());
    const step = stepStarts.length;
    const response: ModelResponse = step > STEPS
      ? {
        content: "",
        toolCalls: [{ id: "done", name: "finish", arguments: "{}" }],
        finish: "tool_calls",
        usage: { input: 10, cachedInput: 0, output: 1 },
      }
      : {
        content: `Step ${step}: reading another file.`,
        toolCalls: [{
          id: `call_${step}`,
          name: "read_file",
          arguments: JSON.stringify({ path: `src/module_${step}.py` }),
        }],
        finish: "tool_calls",
        usage: { input: request.messages.length * 20, cachedInput: 0, output: 12 },
      };
    return Promise.resolve(response);
  },
};

const task: Task = {
  id: "bench",
  dir: ".",
  instruction: "Read the modules.",
  policyPath: "default",
  hasSolution: false,
  manifest: {
    id: "bench",
    category: "bench",
    image: "verdict/busybox",
    workdir: "/workspace",
    network: "none",
    limits: { max_steps: STEPS + 1, timeout_s: 3600, max_total_tokens: 1e9, max_cost_usd: 1000 },
    context: { max_tokens: 1_000_000, reserve_output_tokens: 2_000, strategy: "truncate" },
    policy: "default",
    success: { script: "test.sh", timeout_s: 1 },
    checks: [],
    requires: {},
  },
};

await using dir = await scratchFolder("loop-bench");
const store = openStore(join(dir.path, "verdict.db"));
store.runs.create({ id: "bench", config: {}, createdAt: 0 });
store.runs.createSession({ id: "bench-session", run: "bench", task: "bench", repeat: 0 });
const clock = new LogicalClock();
const agent = loopAgent({
  createModel: () => Promise.resolve(model),
  policyFor: () => DEFAULT_POLICY,
  priceFor: () => null,
  counter: heuristicCounter,
  tools: [readTool, finishTool],
});
const outcome = await agent.run({
  task,
  session: "bench-session",
  container: undefined as unknown as Container,
  record: (events) => void store.events.append("bench-session", events),
  storeBlob: (text) => store.blobs.putText(text),
  clock,
  rng: new SplitMix64(1),
  deadline: clock.monotonic() + 3_600_000,
  signal: new AbortController().signal,
});
store.close();
if (outcome.stopReason !== "completed") {
  throw new Error(`the loop stopped with ${outcome.stopReason}`);
}
const measured = stepStarts.slice(MEASURED_FROM, STEPS + 1);
const perStep = (measured.at(-1)! - measured[0]) / (measured.length - 1);
console.log(
  `loop overhead: ${perStep.toFixed(3)} ms per step with a history of ${2 * MEASURED_FROM}-${
    2 * STEPS
  } ` +
    `messages (context fitting, token counting, request hashing, policy, event log; target <= 1 ms)`,
);
