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
import type { ModelResponse } from "../model/model.ts";
import { diffSnapshots, loadSnapshot, type SnapshotEntry } from "../workspace/snapshot.ts";
import { EVENT, type EventPayload, first, has, last, readEvent } from "../store/event_catalogue.ts";
import type { Store } from "../store/store.ts";
import { answeredTurn } from "./_answered_turn.ts";
import { clip } from "./_clip.ts";
import { withTranscript } from "./_transcript_steps.ts";
import { unifiedDiff } from "./line_diff.ts";

/** One tool call in a trajectory. */
export interface TrajectoryCall {
  /** The call's id. */
  id: string;
  /** The tool. */
  tool: string;
  /** Its arguments as the model wrote them. */
  arguments: string;
  /** The shell command an installed agent's tool ran for it, from the agent's transcript. */
  command?: string;
  /** The policy's decision, when the call got that far. */
  decision?: { allowed: boolean; rule: number | null; reason: string };
  /** The result. */
  result?: {
    content: string;
    is_error: boolean;
    cached?: boolean;
    outcome_unknown?: boolean;
    /** The exit code an installed agent reported for its command. */
    exit_code?: number;
  };
  /** An installed agent's own tool: run by the agent, outside Verdict's policy and record. */
  by_agent?: true;
}

/** One step. */
export interface TrajectoryStep {
  /** The step number. */
  step: number;
  /** What the model said. */
  content: string;
  /** Tokens of the call. */
  usage: ModelResponse["usage"];
  /** Its cost, when known. */
  cost_usd: string | null;
  /** Its tool calls. */
  calls: TrajectoryCall[];
  /** A compaction before this step, if any. */
  compaction?: Omit<EventPayload<typeof EVENT.contextCompacted>, "step">;
}

/** A changed path of the workspace. */
export interface TrajectoryChange {
  /** The path. */
  path: string;
  /** Added, removed or modified. */
  change: string;
  /** What changed about it. */
  aspects?: string[];
  /** A unified diff, for text files. */
  diff?: string;
}

/** A trial's trajectory. */
export interface Trajectory {
  /** The session. */
  session: string;
  /** Its task. */
  task: string;
  /** Its repeat. */
  repeat: number;
  /** The first user message (the task's instruction), when the agent used a model. */
  instruction: string | null;
  /** Steps. */
  steps: TrajectoryStep[];
  /** How the agent stopped. */
  stop: { reason: string; detail: string | null } | null;
  /** The verdict. */
  verdict: { verdict: string; bucket: string; reason: string } | null;
  /** Whether the trial was resumed. */
  resumed: boolean;
  /** The workspace changes. */
  changes: TrajectoryChange[];
}

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
    resumed: has(events, EVENT.trialResumed),
    changes: [],
  };
  let compaction: TrajectoryStep["compaction"];
  const gatewayCalls = new Map<number, EventPayload<typeof EVENT.gatewayCall>>();
  for (const stored of events) {
    const event = readEvent(stored);
    switch (event?.kind) {
      case EVENT.modelRequest:
        if (trajectory.instruction === null) {
          trajectory.instruction = instructionOf(store, event.payload.request.messages[0]);
        }
        break;
      case EVENT.contextCompacted: {
        const { step: _step, ...what } = event.payload;
        compaction = what;
        break;
      }
      case EVENT.modelResponse: {
        const { response, step, cost_usd } = event.payload;
        trajectory.steps.push({
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
        });
        compaction = undefined;
        break;
      }
      case EVENT.gatewayCall:
        gatewayCalls.set(event.payload.number, event.payload);
        break;
      case EVENT.gatewayAnswer: {
        const { number, status, usage, cost_usd } = event.payload;
        const call = gatewayCalls.get(number);
        const turn = call && answeredTurn(call, event.payload);
        const summary = gatewayStepSummary(call, status);
        trajectory.steps.push({
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
        });
        break;
      }
      case EVENT.policyDecision: {
        const { allowed, rule, reason } = event.payload;
        withCall(trajectory, event.payload, (call) => {
          call.decision = { allowed, rule, reason };
        });
        break;
      }
      case EVENT.toolResult: {
        const { content, is_error, cached, outcome_unknown } = event.payload;
        withCall(trajectory, event.payload, (call) => {
          call.result = {
            content: clip(content),
            is_error,
            ...(cached ? { cached: true } : {}),
            ...(outcome_unknown ? { outcome_unknown: true } : {}),
          };
        });
        break;
      }
      case EVENT.agentStopped:
        trajectory.stop = { reason: event.payload.stop_reason, detail: event.payload.detail };
        break;
      case EVENT.trialVerdict: {
        const { verdict, bucket, reason } = event.payload;
        trajectory.verdict = { verdict, bucket, reason };
        break;
      }
    }
  }
  const transcript = last(events, EVENT.agentTranscript);
  if (transcript) trajectory.steps.push(...withTranscript(trajectory.steps, transcript.payload));
  const staged = first(events, EVENT.workspaceStaged);
  const sealed = last(events, EVENT.endStateSealed);
  if (staged && sealed) {
    trajectory.changes = changesOf(store, staged.payload.root, sealed.payload.root);
    // A whole-container seal (a Harbor task's) starts from nothing staged: what the engine said
    // of each path (added, modified, removed) is the change, shown with the sealed content.
    const said = new Map(sealed.payload.changes.map((change) => [change.path, change.change]));
    if (staged.payload.entries === 0 && said.size > 0) {
      trajectory.changes = trajectory.changes.filter((change) => said.has(change.path)).map((
        change,
      ) => ({ ...change, change: said.get(change.path)! }));
    }
  }
  return trajectory;
}

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

function instructionOf(store: Store, first: string | undefined): string | null {
  if (first === undefined) return null;
  try {
    return (JSON.parse(store.blobs.getText(first)) as { content: string }).content;
  } catch {
    return null;
  }
}

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
