/**
 * Codex CLI's transcript (`codex exec --json`, one JSON event a line) read into Verdict's steps:
 *
 * - `item.completed` events carry what happened (`item.started` and `item.updated` announce the
 *   same item early: skipped):
 *   - `agent_message`: a message step.
 *   - `command_execution`: a tool call named `exec_command` (Codex's shell tool), its command the
 *     one Codex ran, then its result (the aggregated output and exit code; an error when the exit
 *     code is not 0 or the item failed).
 *   - `file_change`: a tool call named `apply_patch` whose input is the changes (no shell command),
 *     then its result (a line per changed path).
 *   - `error`: a message step with the error's text.
 *   - `reasoning`: not said to the user, skipped.
 * - `turn.failed` and top-level `error` events: a message step with the error.
 * - `thread.started`, `turn.started`, `turn.completed` (its usage: the gateway counts tokens):
 *   skipped.
 *
 * Codex reports no duration: `duration_ms` is null. Any other line (not JSON, another type or item
 * type, a wrong shape) counts as unread; reading never throws.
 *
 * @module
 */
import type { EVENT, EventPayload } from "../store/event_catalogue.ts";
import type { TranscriptStep } from "../store/events/agent_events.ts";
import { isObject, type Json, jsonLines, jsonText, stringOr } from "./_transcript_lines.ts";

/** The events that announce, frame or count a turn, which add no step. */
const FRAMING: ReadonlySet<unknown> = new Set([
  "thread.started",
  "turn.started",
  "turn.completed",
  "item.started",
  "item.updated",
]);

/**
 * Reads Codex's `exec --json` stdout.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readCodexTranscript } from "./codex_transcript.ts";
 * const stdout = [
 *   { type: "thread.started", thread_id: "t" },
 *   {
 *     type: "item.completed",
 *     item: { id: "item_1", type: "command_execution", command: "ls", aggregated_output: "a\n", exit_code: 0 },
 *   },
 * ].map((line) => JSON.stringify(line)).join("\n");
 * const transcript = readCodexTranscript(stdout);
 * assert.deepEqual(transcript.steps.map((step) => step.type), ["tool_call", "tool_result"]);
 * assert.equal(transcript.duration_ms, null);
 * ```
 */
export function readCodexTranscript(
  stdout: string,
): Omit<EventPayload<typeof EVENT.agentTranscript>, "agent"> {
  const steps: TranscriptStep[] = [];
  let unread = 0;
  for (const line of jsonLines(stdout)) {
    const read = line !== undefined && readLine(line);
    if (read === false) unread++;
    else steps.push(...read);
  }
  return { steps, duration_ms: null, unread_lines: unread };
}

/** The steps of one line, or false when the line is not one Verdict reads. */
function readLine(line: Json): TranscriptStep[] | false {
  if (FRAMING.has(line.type)) return [];
  switch (line.type) {
    case "item.completed":
      return isObject(line.item) ? itemSteps(line.item) : false;
    case "turn.failed":
      return [{ type: "message", text: `turn failed: ${errorMessage(line.error)}` }];
    case "error":
      return [{ type: "message", text: `error: ${errorMessage(line)}` }];
    default:
      return false;
  }
}

function itemSteps(item: Json): TranscriptStep[] | false {
  const id = stringOr(item.id, "");
  switch (item.type) {
    case "agent_message":
      return typeof item.text === "string" ? [{ type: "message", text: item.text }] : false;
    case "reasoning":
      return [];
    case "error":
      return [{ type: "message", text: `error: ${errorMessage(item)}` }];
    case "command_execution": {
      const command = stringOr(item.command, "");
      const exitCode = Number.isInteger(item.exit_code) ? item.exit_code as number : null;
      const failed = item.status === "failed" || item.status === "declined";
      return [
        { type: "tool_call", id, name: "exec_command", command, input: jsonText({ command }) },
        {
          type: "tool_result",
          id,
          output: stringOr(item.aggregated_output, ""),
          is_error: failed || (exitCode !== null && exitCode !== 0),
          exit_code: exitCode,
        },
      ];
    }
    case "file_change": {
      const changes = Array.isArray(item.changes) ? item.changes : [];
      const lines = changes.filter(isObject).map((change) =>
        `${stringOr(change.kind, "change")} ${stringOr(change.path, "?")}`
      );
      return [
        { type: "tool_call", id, name: "apply_patch", command: null, input: jsonText(changes) },
        {
          type: "tool_result",
          id,
          output: lines.join("\n"),
          is_error: item.status === "failed",
          exit_code: null,
        },
      ];
    }
    default:
      return false;
  }
}

/** An error's message: its `message` field, or the value as JSON text. */
function errorMessage(error: unknown): string {
  return isObject(error) && typeof error.message === "string" ? error.message : jsonText(error);
}
