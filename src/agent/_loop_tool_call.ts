/**
 * Judging and running one tool call of the model's answer: an unknown tool, arguments that are
 * not JSON or do not fit the tool's schema, and a call the policy denies are answered with an
 * error; an allowed call is recorded as an intent (with its idempotency key), run (or answered
 * from the record), checkpointed when it may have changed files, and its result recorded.
 *
 * @module
 */
import { deriveId } from "../core/ids.ts";
import type { ToolCall } from "../model/model.ts";
import { decide } from "../policy/policy.ts";
import { type CatalogueEvent, EVENT, event } from "../store/event_catalogue.ts";
import type { AnyTool, ToolResult } from "../tools/tool.ts";
import { crashAt, type LoopRun } from "./_loop_run.ts";

/** A call whose tool exists and whose arguments fit it. */
interface ParsedCall {
  tool: AnyTool;
  args: Record<string, unknown>;
}

/** How a tool result came about, beside its content: recorded with it. */
interface ResultMarks {
  idempotency_key?: string;
  cached?: true;
  outcome_unknown?: true;
}

/**
 * Judges and runs the call at `index` of step `step`'s answer; returns what the model is told.
 * Rejects when the tool's command fails to run (the caller decides: interrupt or deadline).
 *
 * @example
 * ```ts ignore
 * const result = await runToolCall(run, call, step, index);
 * ```
 */
export async function runToolCall(
  run: LoopRun,
  call: ToolCall,
  step: number,
  index: number,
): Promise<ToolResult> {
  const parsed = parseCall(run, call);
  if (typeof parsed === "string") {
    return recordResult(run, step, call, { content: parsed, isError: true });
  }
  const decision = decide(run.policy, call.name, parsed.args, run.task.manifest.workdir);
  run.context.record([
    event(EVENT.policyDecision, { step, call_id: call.id, tool: call.name, ...decision }),
  ]);
  if (!decision.allowed) {
    run.counters.deniedCalls++;
    return recordResult(run, step, call, {
      content: `denied by policy: ${decision.reason} (for: ${decision.subject})`,
      isError: true,
    });
  }
  return await runAllowedCall(run, call, step, index, parsed);
}

/** The call's tool and validated arguments, or what is wrong with it (told to the model). */
function parseCall(run: LoopRun, call: ToolCall): ParsedCall | string {
  const { byName } = run.setup;
  const tool = byName.get(call.name);
  if (tool === undefined) {
    return `there is no tool '${call.name}'; tools: ${[...byName.keys()].join(", ")}`;
  }
  let raw: unknown;
  try {
    raw = JSON.parse(call.arguments);
  } catch (error) {
    return `the arguments are not valid JSON (${(error as Error).message}); send a JSON object`;
  }
  const parsed = tool.args.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) =>
      `${issue.path.join(".") || "arguments"}: ${issue.message}`
    );
    return `invalid arguments for ${call.name}: ${problems.join("; ")}`;
  }
  return { tool, args: parsed.data as Record<string, unknown> };
}

/**
 * Runs a call the policy allows: records its intent, runs it through the setup's `runTool` (which
 * may answer from the record), and records its result together with a snapshot of the workspace
 * when the tool ran and may have changed files. The crash knob fires after the tool runs and
 * after its result is recorded.
 */
async function runAllowedCall(
  run: LoopRun,
  call: ToolCall,
  step: number,
  index: number,
  { tool, args }: ParsedCall,
): Promise<ToolResult> {
  const { context } = run;
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
  const { cached, outcome_unknown, ...result } = await run.setup.runTool(
    { tool, args, key, step },
    () => {
      ran = true;
      return tool.run(args, run.toolContext);
    },
  );
  if (ran) await crashAt(run, "mid-tool", step);
  const marks: ResultMarks = { idempotency_key: key };
  if (cached) marks.cached = true;
  if (outcome_unknown) marks.outcome_unknown = true;
  // The result and the snapshot of what it changed commit together: a crash between them
  // would leave a result whose effect a restored container lacks.
  const snapshot = ran && tool.mutates && context.snapshot
    ? [event(EVENT.workspaceSnapshot, { step, call_id: call.id, root: await context.snapshot() })]
    : [];
  recordResult(run, step, call, result, marks, snapshot);
  if (ran) await crashAt(run, "after-result", step);
  return result;
}

/** Records a call's result (with the events that commit with it) and returns it. */
function recordResult(
  run: LoopRun,
  step: number,
  call: ToolCall,
  result: ToolResult,
  marks: ResultMarks = {},
  along: CatalogueEvent[] = [],
): ToolResult {
  run.context.record([
    event(EVENT.toolResult, {
      step,
      call_id: call.id,
      tool: call.name,
      content: result.content,
      is_error: result.isError,
      ...(result.finish ? { finish: true } : {}),
      ...marks,
    }),
    ...along,
  ]);
  return result;
}
