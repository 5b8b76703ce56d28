/**
 * A loop that costs nothing outside itself, for the loop and replay benchmarks: a model that
 * answers at once (one `read_file` call per step, then `finish`) and a tool that answers at once.
 *
 * @module
 */
import { z } from "zod";
import type { AgentContext } from "../src/agent/agent.ts";
import { SplitMix64 } from "../src/core/rng.ts";
import type { Model, ModelResponse } from "../src/model/model.ts";
import type { Container } from "../src/engine/container.ts";
import type { Store } from "../src/store/store.ts";
import type { Task } from "../src/task/task.ts";
import type { AnyTool } from "../src/tools/tool.ts";

/** A read that returns at once. */
export const instantReadTool: AnyTool = {
  schema: {
    name: "read_file",
    description: "read",
    parameters: { type: "object", properties: { path: { type: "string" } } },
  },
  idempotent: true,
  mutates: false,
  args: z.strictObject({ path: z.string() }),
  run: (args: { path: string }) =>
    Promise.resolve({ content: `contents of ${args.path}\n`.repeat(8), isError: false }),
};

/** A model that reads one file per step for `steps` steps, then finishes; `onStep` times it. */
export function instantModel(steps: number, onStep: () => void = () => {}): Model {
  let step = 0;
  return {
    spec: "instant",
    remote: false,
    complete(request) {
      onStep();
      step++;
      const response: ModelResponse = step > steps
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
}

/** A task with room for `steps` steps and no compaction. */
export function roomyTask(steps: number): Task {
  return {
    id: "bench",
    dir: "tests/fixtures/bench/trivial",
    instruction: "Read the modules.",
    policyPath: "default",
    hasSolution: false,
    manifest: {
      id: "bench",
      category: "bench",
      image: "verdict/busybox",
      workdir: "/workspace",
      network: "none",
      limits: { max_steps: steps + 1, timeout_s: 3600, max_total_tokens: 1e12, max_cost_usd: 1e6 },
      context: { max_tokens: 100_000_000, reserve_output_tokens: 2_000, strategy: "truncate" },
      policy: "default",
      success: { script: "test.sh", timeout_s: 1 },
      checks: [],
      requires: {},
    },
  };
}

/** An agent context recording into a real store's session. */
export function storeContext(store: Store, session: string, task: Task): AgentContext {
  return {
    task,
    session,
    container: undefined as unknown as Container,
    record: (events) => void store.events.append(session, events),
    storeBlob: (text) => store.blobs.putText(text),
    rng: new SplitMix64(1),
    timeoutMs: 3_600_000,
    resumed: false,
    signal: new AbortController().signal,
  };
}
