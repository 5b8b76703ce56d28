/**
 * The loop agent: per step, fit the context, check the budgets, call the model, record its
 * answer, run each tool call through the policy and the sandbox, record each result (a
 * checkpoint). It stops with `completed`, `max_steps`, `timeout`, `budget`, `refused`,
 * `truncated` (an answer cut at its output limit with no tool call) or `error`;
 * the task's `timeout_s` is a hard deadline that aborts a model call or a tool command still
 * running.
 *
 * The loop reads no clock and draws no random number of its own: what it does is a function of
 * the task, the model's answers and the tools' results, which is what lets a session be resumed
 * and replayed from its record.
 *
 * @module
 */
import { canonicalJson } from "../core/canonical_json.ts";
import { hashCanonical } from "../core/hash.ts";
import { deriveId } from "../core/ids.ts";
import { costOf, formatUsd, usd } from "../core/money.ts";
import { type RunCounters, ZERO_COUNTERS } from "../store/run_counters.ts";
import { canonicalMessage, RequestFingerprinter } from "../model/fingerprint.ts";
import type { CrashPoint } from "../model/model_spec.ts";
import {
  type Message,
  type Model,
  type ModelRequest,
  type ModelResponse,
  type RequestParameters,
  type ToolCall,
  totalInput,
} from "../model/model.ts";
import { costOfUsage, type Price } from "../model/prices.ts";
import { requestTokens, type TokenCounter } from "../model/tokens.ts";
import { decide, type Policy } from "../policy/policy.ts";
import { type CatalogueEvent, EVENT, event, type EventPayload } from "../store/event_catalogue.ts";
import type { Task } from "../task/task.ts";
import { BUILTIN_TOOLS } from "../tools/builtin_tools.ts";
import type { AnyTool, ToolContext, ToolResult } from "../tools/tool.ts";
import type { Agent, AgentContext, AgentOutcome, StopReason } from "./agent.ts";
import { fitContext } from "./context.ts";
import { systemPrompt } from "./system_prompt.ts";

/** A tool's result as the loop records it: possibly answered from the record. */
export type RecordedResult = ToolResult & {
  /** Answered from an earlier record of the same call (same idempotency key). */
  cached?: boolean;
  /** A non-idempotent call was started and never finished: its effect is unknown. */
  outcome_unknown?: boolean;
};

/** One tool call about to run, for {@linkcode LoopAgentOptions.runTool}. */
export interface PendingCall {
  /** The tool. */
  tool: AnyTool;
  /** Its validated arguments. */
  args: Record<string, unknown>;
  /** Its idempotency key: the session, its position (step, index) and its arguments. */
  key: string;
  /** The step. */
  step: number;
}

/** How the loop agent is set up for a run. */
export interface LoopAgentOptions {
  /** Makes the trial's model (the scripted model needs the trial's task and seed). */
  createModel(context: AgentContext): Promise<Model>;
  /** The policy for a task. */
  policyFor(task: Task): Policy;
  /** The price of a model, or null when its cost is unknown (`--no-cost`). */
  priceFor(model: Model): Price | null;
  /** Counts tokens for budgeting. */
  counter: TokenCounter;
  /** The tools; default the built-in ones. */
  tools?: readonly AnyTool[];
  /** The system prompt for a task; default {@linkcode systemPrompt}. */
  systemPrompt?: (task: Task) => string;
  /**
   * Runs a tool call; default `run()`. Resume and replay answer from the record here, and tell
   * the model "outcome unknown" for a non-idempotent call that was started and never finished.
   */
  runTool?: (call: PendingCall, run: () => Promise<ToolResult>) => Promise<RecordedResult>;
  /** Fault injection at named points of a step (a crash knob); told whether the trial was resumed. */
  crash?: (point: CrashPoint, step: number, resumed: boolean) => Promise<void>;
  /**
   * `--max-output-tokens`: every request's output budget (and the context reserved for it), in
   * place of the task's `context.reserve_output_tokens`.
   */
  maxOutputTokens?: number;
  /** The user's request parameters (`--temperature`, ...): on every request, fingerprinted. */
  parameters?: RequestParameters;
}

/**
 * The built-in agent loop.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { loopAgent } from "./loop_agent.ts";
 * import { DEFAULT_POLICY } from "../policy/default_policy.ts";
 * import { heuristicCounter } from "../model/tokens.ts";
 * const agent = loopAgent({
 *   createModel: () => Promise.reject(new Error("no model in this example")),
 *   policyFor: () => DEFAULT_POLICY,
 *   priceFor: () => null,
 *   counter: heuristicCounter,
 * });
 * assert(agent.name === "loop");
 * ```
 */
export function loopAgent(options: LoopAgentOptions): Agent {
  const tools = options.tools ?? BUILTIN_TOOLS;
  const byName = new Map(tools.map((tool) => [tool.schema.name, tool]));
  const schemas = tools.map((tool) => tool.schema);
  const runTool = options.runTool ??
    ((_call: PendingCall, run: () => Promise<ToolResult>): Promise<RecordedResult> => run());
  const crashHook = options.crash ?? (() => Promise.resolve());
  return {
    name: "loop",
    async run(context) {
      const { task } = context;
      const { limits } = task.manifest;
      const model = await options.createModel(context);
      const policy = options.policyFor(task);
      const price = options.priceFor(model);
      const system = (options.systemPrompt ?? systemPrompt)(task);
      const outputTokens = options.maxOutputTokens ?? task.manifest.context.reserve_output_tokens;
      let messages: Message[] = [{ role: "user", content: task.instruction }];
      const counters: RunCounters = {
        ...ZERO_COUNTERS,
        costUsd: price ? 0n : null,
        resumed: context.resumed,
      };
      const tokens = { input: 0, output: 0 };
      const deadline = deadlineSignal(context.timeoutMs);
      const signal = AbortSignal.any([context.signal, deadline.signal]);
      const requests = requestRecorder(context);
      context.record([event(EVENT.loopStarted, {
        model: model.spec,
        policy: policy.source,
        policy_sha256: hashCanonical(policy.rules),
        tools: schemas.map((schema) => schema.name),
        system_prompt_sha256: hashCanonical(system),
        limits,
        context: task.manifest.context,
      })]);
      const stop = (reason: StopReason, detail?: string): AgentOutcome => {
        context.record([event(EVENT.loopStopped, { stop_reason: reason, detail: detail ?? null })]);
        return { stopReason: reason, counters, tokens, detail };
      };
      const timedOut = (what: string) =>
        stop("timeout", `${what} was still running at timeout_s ${limits.timeout_s}`);
      const toolContext: ToolContext = {
        container: context.container,
        task,
        signal,
        permits: (tool, path) => decide(policy, tool, { path }, task.manifest.workdir).allowed,
      };
      const crash = (point: CrashPoint, step: number) => crashHook(point, step, context.resumed);

      try {
        for (let step = 1;; step++) {
          if (step > limits.max_steps) {
            return stop("max_steps", `reached max_steps ${limits.max_steps}`);
          }
          if (deadline.signal.aborted) {
            return stop("timeout", `reached timeout_s ${limits.timeout_s}`);
          }

          const fitted = fitContext(system, messages, schemas, {
            maxTokens: task.manifest.context.max_tokens,
            reserveOutputTokens: outputTokens,
            strategy: task.manifest.context.strategy,
          }, options.counter);
          if (fitted.kind === "prefix_too_large") {
            return stop(
              "budget",
              `the system prompt, the task and the tool schemas need ${fitted.needed} tokens with the ` +
                `reserved output, more than context.max_tokens ${fitted.budget}`,
            );
          }
          if (fitted.compaction) {
            counters.compactions++;
            context.record([event(EVENT.contextCompacted, { step, ...fitted.compaction })]);
          }
          messages = fitted.messages;

          const request: ModelRequest = {
            system,
            messages,
            tools: schemas,
            maxOutputTokens: outputTokens,
            ...(options.parameters ? { parameters: options.parameters } : {}),
          };
          const estimate = requestTokens(options.counter, request) + request.maxOutputTokens;
          if (counters.totalTokens + estimate > limits.max_total_tokens) {
            return stop(
              "budget",
              `the next call could use ${estimate} tokens; with ${counters.totalTokens} used that passes ` +
                `max_total_tokens ${limits.max_total_tokens}`,
            );
          }
          if (price && counters.costUsd !== null) {
            const next = costOf(estimate - request.maxOutputTokens, price.input) +
              costOf(request.maxOutputTokens, price.output);
            if (counters.costUsd + next > usd(limits.max_cost_usd)) {
              return stop(
                "budget",
                `the next call could cost $${formatUsd(next)}; with $${
                  formatUsd(counters.costUsd)
                } spent ` +
                  `that passes max_cost_usd ${limits.max_cost_usd}`,
              );
            }
          }

          context.record([event(EVENT.modelRequest, { step, ...requests.record(request) })]);
          await crash("before-model", step);
          let response: ModelResponse;
          try {
            response = await model.complete(request, { signal });
          } catch (error) {
            if (context.signal.aborted) throw context.signal.reason;
            if (deadline.signal.aborted) return timedOut("the model call");
            throw error;
          }
          const cost = price ? costOfUsage(price, response.usage) : null;
          tokens.input += totalInput(response.usage);
          tokens.output += response.usage.output;
          counters.totalTokens = tokens.input + tokens.output;
          if (cost !== null && counters.costUsd !== null) counters.costUsd += cost;
          counters.steps = step;
          context.record([
            event(EVENT.modelResponse, {
              step,
              response,
              cost_usd: cost === null ? null : formatUsd(cost, 12),
            }),
          ]);
          await crash("after-response", step);

          if (response.toolCalls.length === 0) {
            if (response.finish === "refusal") return stop("refused", firstLine(response.content));
            if (response.finish === "length") {
              return stop(
                "truncated",
                `the model's answer was cut at its output limit (${request.maxOutputTokens} ` +
                  `tokens, ${
                    options.maxOutputTokens === undefined
                      ? "context.reserve_output_tokens"
                      : "--max-output-tokens"
                  }) without a tool call`,
              );
            }
            counters.finished = true;
            return stop("completed", "the model answered without calling a tool");
          }
          messages = [...messages, {
            role: "assistant",
            content: response.content,
            toolCalls: response.toolCalls,
          }];
          let finished = false;
          for (const [index, call] of response.toolCalls.entries()) {
            counters.toolCalls++;
            let result: ToolResult;
            try {
              result = await runCall(call, step, index);
            } catch (error) {
              if (context.signal.aborted) throw context.signal.reason;
              if (deadline.signal.aborted) return timedOut(`the ${call.name} call`);
              throw error;
            }
            messages = [...messages, {
              role: "tool",
              toolCallId: call.id,
              name: call.name,
              content: result.content,
              isError: result.isError,
            }];
            if (result.finish) finished = true;
          }
          if (finished) {
            counters.finished = true;
            return stop("completed", "the agent called finish");
          }
        }
      } finally {
        deadline.dispose();
      }

      async function runCall(call: ToolCall, step: number, index: number): Promise<ToolResult> {
        const answer = (
          result: ToolResult,
          extra: ResultMarks = {},
          along: CatalogueEvent[] = [],
        ) => {
          context.record([
            event(EVENT.toolResult, {
              step,
              call_id: call.id,
              tool: call.name,
              content: result.content,
              is_error: result.isError,
              ...(result.finish ? { finish: true } : {}),
              ...extra,
            }),
            ...along,
          ]);
          return result;
        };
        const tool = byName.get(call.name);
        if (tool === undefined) {
          return answer({
            content: `there is no tool '${call.name}'; tools: ${[...byName.keys()].join(", ")}`,
            isError: true,
          });
        }
        let raw: unknown;
        try {
          raw = JSON.parse(call.arguments);
        } catch (error) {
          return answer({
            content: `the arguments are not valid JSON (${
              (error as Error).message
            }); send a JSON object`,
            isError: true,
          });
        }
        const parsed = tool.args.safeParse(raw);
        if (!parsed.success) {
          const problems = parsed.error.issues.map((issue) =>
            `${issue.path.join(".") || "arguments"}: ${issue.message}`
          );
          return answer({
            content: `invalid arguments for ${call.name}: ${problems.join("; ")}`,
            isError: true,
          });
        }
        const args = parsed.data as Record<string, unknown>;
        const decision = decide(policy, call.name, args, context.task.manifest.workdir);
        context.record([
          event(EVENT.policyDecision, { step, call_id: call.id, tool: call.name, ...decision }),
        ]);
        if (!decision.allowed) {
          counters.deniedCalls++;
          return answer({
            content: `denied by policy: ${decision.reason} (for: ${decision.subject})`,
            isError: true,
          });
        }
        const key = deriveId("verdict.call/1", {
          session: context.session,
          step,
          index,
          tool: call.name,
          args,
        }, 24);
        context.record([event(EVENT.toolIntent, {
          step,
          call_id: call.id,
          tool: call.name,
          arguments: args,
          idempotency_key: key,
          idempotent: tool.idempotent,
        })]);
        let ran = false;
        const { cached, outcome_unknown, ...result } = await runTool(
          { tool, args, key, step },
          () => {
            ran = true;
            return tool.run(args, toolContext);
          },
        );
        if (ran) await crash("mid-tool", step);
        const extra: ResultMarks = { idempotency_key: key };
        if (cached) extra.cached = true;
        if (outcome_unknown) extra.outcome_unknown = true;
        // The result and the snapshot of what it changed commit together: a crash between them
        // would leave a result whose effect a restored container lacks.
        const snapshot = ran && tool.mutates && context.snapshot
          ? [
            event(EVENT.workspaceSnapshot, {
              step,
              call_id: call.id,
              root: await context.snapshot(),
            }),
          ]
          : [];
        answer(result, extra, snapshot);
        if (ran) await crash("after-result", step);
        return result;
      }
    },
  };
}

/**
 * Records requests part by part: the system prompt, the tool schemas and each message go to the
 * blob store once, and each request event names only the message hashes that are new since the
 * previous request (`prefix` says how many it shares).
 */
function requestRecorder(context: AgentContext) {
  const stored = new Set<string>();
  const fingerprinter = new RequestFingerprinter();
  const store = (hash: string, text: () => string) => {
    if (stored.has(hash)) return;
    if (context.storeBlob(text()) !== hash) throw new Error("a request part changed while stored");
    stored.add(hash);
  };
  return {
    record(request: ModelRequest): Omit<EventPayload<typeof EVENT.modelRequest>, "step"> {
      const { fingerprint, manifest, prefix } = fingerprinter.fingerprint(request);
      store(manifest.system, () => canonicalJson(request.system));
      store(manifest.tools, () => canonicalJson(request.tools));
      for (let index = prefix; index < request.messages.length; index++) {
        store(manifest.messages[index], () => canonicalMessage(request.messages[index]).json);
      }
      return {
        fingerprint,
        request: { ...manifest, prefix, messages: manifest.messages.slice(prefix) },
      };
    },
  };
}

/** How a tool result came about, beside its content: recorded with it. */
interface ResultMarks {
  idempotency_key?: string;
  cached?: true;
  outcome_unknown?: true;
}

function firstLine(text: string): string {
  return text.split("\n")[0].slice(0, 200);
}

/** An abort signal for the task's deadline, on a real timer. */
function deadlineSignal(timeoutMs: number): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new Error("the task's deadline passed")),
    Math.max(0, timeoutMs),
  );
  return { signal: controller.signal, dispose: () => clearTimeout(timer) };
}
