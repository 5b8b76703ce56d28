/**
 * A trial's trajectory, read back from its event log: the task as the agent was told it, each
 * step's answer, every tool call with the policy's decision and the result, compactions, how the
 * agent stopped, the verdict, and what it changed in the workspace (with line diffs of text files).
 * An installed agent's model calls through the gateway are steps too, numbered as the gateway
 * numbered them, with their tokens and cost, a line saying what the call was, what the model said
 * and the tools it called; the agent's own transcript (`agent.transcript`) adds each call's shell
 * command and result (`_transcript_steps.ts`).
 *
 * @module
 */
import { diffSnapshots, loadSnapshot, type SnapshotEntry } from "../workspace/snapshot.ts";
import {
  all,
  EVENT,
  type EventPayload,
  first,
  has,
  last,
  type ReadEvent,
  readEvent,
} from "../store/event_catalogue.ts";
import type { Store } from "../store/store.ts";
import { answeredTurn } from "./_answered_turn.ts";
import { clip } from "./_clip.ts";
import { withTranscript } from "./_transcript_steps.ts";
import { unifiedDiff } from "./line_diff.ts";
import type {
  Trajectory,
  TrajectoryCall,
  TrajectoryChange,
  TrajectoryStep,
} from "./trajectory_types.ts";

export type {
  Trajectory,
  TrajectoryCall,
  TrajectoryChange,
  TrajectoryStep,
} from "./trajectory_types.ts";

/**
 * Reads a session's trajectory from the store.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openStore } from "../store/store.ts";
 * import { readTrajectory } from "./trajectory.ts";
 * const store = openStore(":memory:");
 * store.runs.create({ id: "r", config: {}, createdAt: 0 });
 * store.runs.createSession({ id: "s", run: "r", task: "t", repeat: 0 });
 * assert(readTrajectory(store, store.runs.session("s")!).steps.length === 0);
 * ```
 */
export function readTrajectory(
  store: Store,
  session: { id: string; task: string; repeat: number },
): Trajectory {
  const events = store.events.read(session.id);
  const trajectory: Trajectory = {
    session: session.id,
    task: session.task,
    repeat: session.repeat,
    instruction: null,
    steps: [],
    stop: null,
    verdict: null,
    grading: null,
    resumed: has(events, EVENT.trialResumed),
    changes: [],
  };
  const read = eventReader(store, trajectory);
  for (const stored of events) read(readEvent(stored));
  const engine = first(events, EVENT.trialStarted)?.payload.engine;
  if (engine !== undefined) trajectory.engine = engine;
  for (const { payload } of all(events, EVENT.trialResumed)) {
    if (payload.engine !== undefined) trajectory.engine = payload.engine;
    if (payload.moved_from === undefined) continue;
    const { engine: from, reason } = payload.moved_from;
    trajectory.moves = [...trajectory.moves ?? [], { from, to: payload.engine ?? "", reason }];
  }
  const ran = last(events, EVENT.agentCmd)?.payload;
  if (ran !== undefined) {
    const { command, exit_code, timed_out, stdout, stderr } = ran;
    trajectory.agentRun = { command, exit_code, timed_out, stdout, stderr };
    trajectory.instruction ??= ran.instruction ?? null;
  }
  if (ran?.replay_masks !== undefined) {
    trajectory.replay = { clockStart: ran.clock_start ?? null, masks: ran.replay_masks };
  }
  const transcript = last(events, EVENT.agentTranscript);
  if (transcript) trajectory.steps.push(...withTranscript(trajectory.steps, transcript.payload));
  const result = store.runs.session(session.id)?.result;
  if (result && (result.success || result.canary || result.checks.length > 0)) {
    const { checks, requirements, success, canary, reward } = result;
    trajectory.grading = {
      checks,
      requirements,
      success,
      canary,
      ...(reward === undefined ? {} : { reward }),
    };
  }
  const staged = first(events, EVENT.workspaceStaged);
  const sealed = last(events, EVENT.endStateSealed);
  if (staged && sealed) {
    trajectory.changes = workspaceChanges(store, staged.payload, sealed.payload);
  }
  return trajectory;
}

/**
 * Folds events into a trajectory, in order: the instruction from the first request, a step per
 * model answer (with the compaction before it) and per gateway answer, each call's decision and
 * result, how the agent stopped, the verdict.
 */
function eventReader(store: Store, trajectory: Trajectory): (event: ReadEvent | undefined) => void {
  let compaction: TrajectoryStep["compaction"];
  const gatewayCalls = new Map<number, EventPayload<typeof EVENT.gatewayCall>>();
  return (event) => {
    switch (event?.kind) {
      case EVENT.modelRequest:
        trajectory.instruction ??= instructionOf(store, event.payload.request.messages[0]);
        break;
      case EVENT.contextCompacted: {
        const { step: _step, ...what } = event.payload;
        compaction = what;
        break;
      }
      case EVENT.modelResponse:
        trajectory.steps.push(modelStep(event.payload, compaction));
        compaction = undefined;
        break;
      case EVENT.gatewayCall:
        gatewayCalls.set(event.payload.number, event.payload);
        break;
      case EVENT.gatewayAnswer:
        trajectory.steps.push(gatewayStep(gatewayCalls.get(event.payload.number), event.payload));
        break;
      case EVENT.policyDecision: {
        const { allowed, rule, reason } = event.payload;
        withCall(trajectory, event.payload, (call) => {
          call.decision = { allowed, rule, reason };
        });
        break;
      }
      case EVENT.toolResult:
        withCall(trajectory, event.payload, (call) => {
          call.result = callResult(event.payload);
        });
        break;
      case EVENT.agentStopped:
        trajectory.stop = { reason: event.payload.stop_reason, detail: event.payload.detail };
        break;
      case EVENT.trialVerdict: {
        const { verdict, bucket, reason } = event.payload;
        trajectory.verdict = { verdict, bucket, reason };
        break;
      }
    }
  };
}

/** The step of a model's answer to the loop, with the compaction before it, if any. */
function modelStep(
  { response, step, cost_usd }: EventPayload<typeof EVENT.modelResponse>,
  compaction: TrajectoryStep["compaction"],
): TrajectoryStep {
  return {
    step,
    content: response.content,
    usage: response.usage,
    cost_usd,
    calls: response.toolCalls.map((call) => ({
      id: call.id,
      tool: call.name,
      arguments: call.arguments,
    })),
    ...(compaction ? { compaction } : {}),
  };
}

/**
 * The step of an installed agent's model call through the gateway: a line saying what the call
 * was, then what the model said; the tools it called are the agent's own.
 */
function gatewayStep(
  call: EventPayload<typeof EVENT.gatewayCall> | undefined,
  answer: EventPayload<typeof EVENT.gatewayAnswer>,
): TrajectoryStep {
  const { number, status, usage, cost_usd } = answer;
  const turn = call && answeredTurn(call, answer);
  const summary = gatewayStepSummary(call, status);
  return {
    step: number,
    content: turn?.content ? `${summary}\n${turn.content}` : summary,
    usage: usage ?? { input: 0, cachedInput: 0, output: 0 },
    cost_usd,
    calls: (turn?.toolCalls ?? []).map((tool) => ({
      id: tool.id,
      tool: tool.name,
      arguments: tool.arguments,
      by_agent: true as const,
    })),
  };
}

/** A tool result as a trajectory shows it: its content clipped, its marks kept. */
function callResult(
  { content, is_error, cached, outcome_unknown }: EventPayload<typeof EVENT.toolResult>,
): NonNullable<TrajectoryCall["result"]> {
  return {
    content: clip(content),
    is_error,
    ...(cached ? { cached: true } : {}),
    ...(outcome_unknown ? { outcome_unknown: true } : {}),
  };
}

/**
 * What the agent changed, from the staged workspace to the sealed end state. A whole-container
 * seal (a Harbor task's) starts from nothing staged: what the engine said of each path (added,
 * modified, removed) is the change, shown with the sealed content.
 */
function workspaceChanges(
  store: Store,
  staged: EventPayload<typeof EVENT.workspaceStaged>,
  sealed: EventPayload<typeof EVENT.endStateSealed>,
): TrajectoryChange[] {
  const changes = changesOf(store, staged.root, sealed.root);
  const said = new Map(sealed.changes.map((change) => [change.path, change.change]));
  if (staged.entries !== 0 || said.size === 0) return changes;
  return changes.filter((change) => said.has(change.path)).map((change) => ({
    ...change,
    change: said.get(change.path)!,
  }));
}

/** Updates the call `at` names (its step and call id), if the trajectory has it. */
function withCall(
  trajectory: Trajectory,
  at: { step: number; call_id: string },
  update: (call: TrajectoryCall) => void,
): void {
  const step = trajectory.steps.find((candidate) => candidate.step === at.step);
  const call = step?.calls.find((candidate) => candidate.id === at.call_id);
  if (call) update(call);
}

/**
 * A model call an installed agent made through the gateway, in a line: its format, whether it
 * streamed, the model it named and the answer's status (the answer's own content stays in the
 * format's body, in the record).
 */
function gatewayStepSummary(
  call: EventPayload<typeof EVENT.gatewayCall> | undefined,
  status: number,
): string {
  const what = call
    ? `${call.format} call${call.stream ? " (streamed)" : ""} for ${call.model}`
    : "model call";
  return `${what}: HTTP ${status}`;
}

/** The text of the request's first message (the task's instruction), from its blob. */
function instructionOf(store: Store, first: string | undefined): string | null {
  if (first === undefined) return null;
  try {
    return (JSON.parse(store.blobs.getText(first)) as { content: string }).content;
  } catch {
    return null;
  }
}

/** The changes between two snapshots, with a line diff of each text file whose content changed. */
function changesOf(store: Store, initialRoot: string, finalRoot: string): TrajectoryChange[] {
  const initial = loadSnapshot(store.blobs, initialRoot);
  const final = loadSnapshot(store.blobs, finalRoot);
  // By path, once: a lookup per change in the entry lists took 16 s for 90,000 new files.
  const byPath = (entries: SnapshotEntry[]) => new Map(entries.map((entry) => [entry.path, entry]));
  const initialByPath = byPath(initial.entries);
  const finalByPath = byPath(final.entries);
  const text = (entries: Map<string, SnapshotEntry>, path: string) => {
    const entry = entries.get(path);
    if (entry?.type !== "file" || entry.size > 200_000) return undefined;
    const bytes = store.blobs.get(entry.sha256);
    return bytes.subarray(0, 8000).includes(0) ? undefined : new TextDecoder().decode(bytes);
  };
  return diffSnapshots(initial, final).map((change) => {
    const before = change.change === "added" ? "" : text(initialByPath, change.path);
    const after = change.change === "removed" ? "" : text(finalByPath, change.path);
    const contentChanged = change.change !== "modified" || change.aspects?.includes("content");
    return {
      ...change,
      ...(before !== undefined && after !== undefined && contentChanged
        ? { diff: clip(unifiedDiff(before, after)) }
        : {}),
    };
  });
}
