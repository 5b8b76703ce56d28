/**
 * Running the loop agent without Docker: fake tools that answer at once, a model that is a plain
 * function, an in-memory event log.
 *
 * @module
 */
import { z } from "zod";
import type { AgentOutcome } from "../../src/agent/agent.ts";
import { loopAgent } from "../../src/agent/loop_agent.ts";
import { sha256Hex } from "../../src/core/hash.ts";
import { SplitMix64 } from "../../src/core/rng.ts";
import type { Model, ModelRequest, ModelResponse } from "../../src/model/model.ts";
import type { Price } from "../../src/model/prices.ts";
import { heuristicCounter } from "../../src/model/tokens.ts";
import { DEFAULT_POLICY } from "../../src/policy/default_policy.ts";
import type { Policy } from "../../src/policy/policy.ts";
import type { Container } from "../../src/engine/container.ts";
import type { CatalogueEvent } from "../../src/store/event_catalogue.ts";
import type { Manifest } from "../../src/task/manifest.ts";
import type { Task } from "../../src/task/task.ts";
import { finishTool } from "../../src/tools/finish_tool.ts";
import type { AnyTool } from "../../src/tools/tool.ts";

/** A tool that echoes `size` characters, without a container. */
export const echoTool: AnyTool = {
  schema: {
    name: "echo",
    description: "echo",
    parameters: { type: "object", properties: { size: { type: "integer" } } },
  },
  idempotent: true,
  mutates: false,
  args: z.strictObject({ size: z.number().int().optional() }),
  run: (args: { size?: number }) =>
    Promise.resolve({ content: "x".repeat(args.size ?? 10), isError: false }),
};

/** A tool that "changes files" (it says so), without a container. */
export const touchTool: AnyTool = {
  schema: {
    name: "touch",
    description: "touch",
    parameters: { type: "object", properties: {} },
  },
  idempotent: false,
  mutates: true,
  args: z.strictObject({}),
  run: () => Promise.resolve({ content: "touched", isError: false }),
};

/** A task manifest for loop tests. */
export function testTask(overrides: Partial<Manifest> = {}): Task {
  const manifest: Manifest = {
    id: "loop-test",
    category: "test",
    image: "verdict/busybox",
    workdir: "/workspace",
    network: "none",
    limits: { max_steps: 30, timeout_s: 600, max_total_tokens: 200_000, max_cost_usd: 0.5 },
    context: { max_tokens: 16_000, reserve_output_tokens: 2_000, strategy: "truncate" },
    policy: "default",
    success: { script: "test.sh", timeout_s: 120 },
    checks: [],
    requires: {},
    ...overrides,
  };
  return {
    id: manifest.id,
    dir: ".",
    manifest,
    instruction: "Do the thing.",
    policyPath: "default",
    hasSolution: false,
  };
}

/** Runs the loop with a model function; returns the outcome, the events and the requests seen. */
export async function runLoop(
  answer: (request: ModelRequest, call: number) => ModelResponse,
  options: {
    task?: Task;
    policy?: Policy;
    price?: Price | null;
    tools?: AnyTool[];
    snapshot?: () => Promise<string>;
    batches?: CatalogueEvent[][];
  } = {},
): Promise<{ outcome: AgentOutcome; events: CatalogueEvent[]; requests: ModelRequest[] }> {
  const events: CatalogueEvent[] = [];
  const requests: ModelRequest[] = [];
  let calls = 0;
  const model: Model = {
    spec: "test",
    remote: false,
    complete: (request) => {
      requests.push(structuredClone(request));
      return Promise.resolve(answer(request, ++calls));
    },
  };
  const agent = loopAgent({
    createModel: () => Promise.resolve(model),
    policyFor: () => options.policy ?? DEFAULT_POLICY,
    priceFor: () => options.price ?? null,
    counter: heuristicCounter,
    tools: options.tools ?? [echoTool, finishTool],
  });
  const outcome = await agent.run({
    task: options.task ?? testTask(),
    session: "s",
    container: undefined as unknown as Container,
    record: (batch) => {
      events.push(...batch);
      options.batches?.push(batch);
    },
    snapshot: options.snapshot,
    storeBlob: (text) => sha256Hex(text),
    rng: new SplitMix64(1),
    timeoutMs: (options.task?.manifest.limits.timeout_s ?? 600) * 1000,
    resumed: false,
    signal: new AbortController().signal,
  });
  return { outcome, events, requests };
}

let callNumber = 0;

/** A response that calls tools. */
export function calls(...tools: [string, Record<string, unknown> | string][]): ModelResponse {
  return {
    content: "",
    toolCalls: tools.map(([name, args], index) => ({
      id: `call_${++callNumber}_${index}`,
      name,
      arguments: typeof args === "string" ? args : JSON.stringify(args),
    })),
    finish: "tool_calls",
    usage: { input: 100, cachedInput: 0, output: 10 },
  };
}
