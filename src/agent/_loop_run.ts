/**
 * One run of the loop agent as state its steps share: what the run was given (task, model,
 * policy, price, system prompt, tools), what it has said so far (the messages) and what it has
 * counted; how it starts (`loop.started`) and how it stops (`loop.stopped`).
 *
 * @module
 */
import type { BoundedInput } from "../gateway/input_bound.ts";
import { hashCanonical } from "../core/hash.ts";
import type { CrashPoint } from "../model/model_spec.ts";
import type { Message, Model, ToolSchema } from "../model/model.ts";
import type { Price } from "../model/prices.ts";
import { decide, type Policy } from "../policy/policy.ts";
import { EVENT, event } from "../store/event_catalogue.ts";
import { type RunCounters, ZERO_COUNTERS } from "../store/run_counters.ts";
import type { Task } from "../task/task.ts";
import { BUILTIN_TOOLS } from "../tools/builtin_tools.ts";
import type { AnyTool, ToolContext, ToolResult } from "../tools/tool.ts";
import type { AgentContext, AgentOutcome, StopReason } from "./agent.ts";
import type { LoopAgentOptions, PendingCall, RecordedResult } from "./loop_options.ts";
import { type RequestRecorder, requestRecorder } from "./_request_recorder.ts";
import { systemPrompt } from "./system_prompt.ts";

/** The loop agent's options with their defaults filled in: the same for every run. */
export interface LoopSetup {
  /** The options as given. */
  options: LoopAgentOptions;
  /** The tools by name. */
  byName: ReadonlyMap<string, AnyTool>;
  /** The tools' schemas, in order: one array, so its hash is computed once. */
  schemas: ToolSchema[];
  /** Runs a tool call (resume and replay answer from the record). */
  runTool: (call: PendingCall, run: () => Promise<ToolResult>) => Promise<RecordedResult>;
  /** Fault injection at named points of a step. */
  crash: (point: CrashPoint, step: number, resumed: boolean) => Promise<void>;
}

/**
 * Why the loop stops, with a line of detail: what `loop.stopped` records. A step returns one in
 * place of what it would have made (`result instanceof Stop`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Stop } from "./_loop_run.ts";
 * assert(new Stop("max_steps", "reached max_steps 30") instanceof Stop);
 * ```
 */
export class Stop {
  /**
   * A stop.
   *
   * @param reason The stop reason.
   * @param detail The detail.
   */
  constructor(readonly reason: StopReason, readonly detail: string) {}
}

/** The state of one run of the loop, shared by its steps. */
export interface LoopRun {
  /** The setup the run was started with. */
  setup: LoopSetup;
  /** The agent's context: the task, the container, the session's log. */
  context: AgentContext;
  /** The task. */
  task: Task;
  /** The model. */
  model: Model;
  /** The task's policy. */
  policy: Policy;
  /** The model's price, or null when its cost is unknown. */
  price: Price | null;
  /** The system prompt. */
  system: string;
  /** Every request's output budget. */
  outputTokens: number;
  /** The conversation so far, after the system prompt; replaced, never changed in place. */
  messages: Message[];
  /** What the harness counts. */
  counters: RunCounters;
  /** Tokens used. */
  tokens: { input: number; output: number };
  /** The task's deadline. */
  deadline: Deadline;
  /** Aborts on the deadline or on an interrupt. */
  signal: AbortSignal;
  /** Records the requests. */
  requests: RequestRecorder;
  /** The last answered request and its input's real tokens: it bounds the next one's input. */
  lastAnswered?: { input: BoundedInput; tokens: number };
  /** What the tools run with. */
  toolContext: ToolContext;
}

/** An abort signal on a real timer, disposed when the run ends. */
export interface Deadline {
  /** Aborts when the deadline passes. */
  signal: AbortSignal;
  /** Clears the timer. */
  dispose(): void;
}

/**
 * Fills in the loop agent's defaults.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { loopSetup } from "./_loop_run.ts";
 * import { DEFAULT_POLICY } from "../policy/default_policy.ts";
 * import { heuristicCounter } from "../model/tokens.ts";
 * const setup = loopSetup({
 *   createModel: () => Promise.reject(new Error("no model in this example")),
 *   policyFor: () => DEFAULT_POLICY,
 *   priceFor: () => null,
 *   counter: heuristicCounter,
 * });
 * assert(setup.byName.has("finish"));
 * ```
 */
export function loopSetup(options: LoopAgentOptions): LoopSetup {
  const tools = options.tools ?? BUILTIN_TOOLS;
  return {
    options,
    byName: new Map(tools.map((tool) => [tool.schema.name, tool])),
    schemas: tools.map((tool) => tool.schema),
    runTool: options.runTool ??
      ((_call: PendingCall, run: () => Promise<ToolResult>): Promise<RecordedResult> => run()),
    crash: options.crash ?? (() => Promise.resolve()),
  };
}

/**
 * Starts a run: makes the model, the policy and the system prompt, starts the deadline's timer
 * and records `loop.started`. The conversation opens with the task's instruction.
 *
 * @example
 * ```ts ignore
 * const run = await startLoop(loopSetup(options), context);
 * ```
 */
export async function startLoop(setup: LoopSetup, context: AgentContext): Promise<LoopRun> {
  const { options, schemas } = setup;
  const { task } = context;
  const model = await options.createModel(context);
  const policy = options.policyFor(task);
  const price = options.priceFor(model);
  const system = (options.systemPrompt ?? systemPrompt)(task);
  const deadline = deadlineSignal(context.timeoutMs);
  const signal = AbortSignal.any([context.signal, deadline.signal]);
  const run: LoopRun = {
    setup,
    context,
    task,
    model,
    policy,
    price,
    system,
    outputTokens: options.maxOutputTokens ?? task.manifest.context.reserve_output_tokens,
    messages: [{ role: "user", content: task.instruction }],
    counters: { ...ZERO_COUNTERS, costUsd: price ? 0n : null, resumed: context.resumed },
    tokens: { input: 0, output: 0 },
    deadline,
    signal,
    requests: requestRecorder(context),
    toolContext: {
      container: context.container,
      task,
      signal,
      permits: (tool, path) => decide(policy, tool, { path }, task.manifest.workdir).allowed,
    },
  };
  context.record([event(EVENT.loopStarted, {
    model: model.spec,
    policy: policy.source,
    policy_sha256: hashCanonical(policy.rules),
    tools: schemas.map((schema) => schema.name),
    system_prompt_sha256: hashCanonical(system),
    limits: task.manifest.limits,
    context: task.manifest.context,
  })]);
  return run;
}

/**
 * Stops a run: records `loop.stopped` and returns the agent's outcome.
 *
 * @example
 * ```ts ignore
 * return stopLoop(run, new Stop("max_steps", "reached max_steps 30"));
 * ```
 */
export function stopLoop(run: LoopRun, stop: Stop): AgentOutcome {
  const { reason, detail } = stop;
  run.context.record([event(EVENT.loopStopped, { stop_reason: reason, detail })]);
  return { stopReason: reason, counters: run.counters, tokens: run.tokens, detail };
}

/**
 * Calls the crash knob at a named point of a step.
 *
 * @example
 * ```ts ignore
 * await crashAt(run, "before-model", step);
 * ```
 */
export function crashAt(run: LoopRun, point: CrashPoint, step: number): Promise<void> {
  return run.setup.crash(point, step, run.context.resumed);
}

/**
 * What a model or tool call's failure means: an interrupt is rethrown, the deadline stops the
 * loop with `timeout`, anything else is rethrown.
 *
 * @example
 * ```ts ignore
 * try { await model.complete(request, { signal: run.signal }); }
 * catch (error) { return failedCall(run, error, "the model call"); }
 * ```
 */
export function failedCall(run: LoopRun, error: unknown, what: string): Stop {
  if (run.context.signal.aborted) throw run.context.signal.reason;
  if (run.deadline.signal.aborted) {
    const timeout = run.task.manifest.limits.timeout_s;
    return new Stop("timeout", `${what} was still running at timeout_s ${timeout}`);
  }
  throw error;
}

/** An abort signal for the task's deadline, on a real timer. */
function deadlineSignal(timeoutMs: number): Deadline {
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new Error("the task's deadline passed")),
    Math.max(0, timeoutMs),
  );
  return { signal: controller.signal, dispose: () => clearTimeout(timer) };
}
