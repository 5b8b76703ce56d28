/**
 * Claude Code's transcript (`claude -p ... --output-format stream-json --verbose`, one JSON object
 * a line) read into Verdict's steps:
 *
 * - `system` lines (the session's init, compaction markers): skipped.
 * - `assistant` lines: each `text` block is a message step (an API error Claude Code reports as
 *   an assistant message, `is_api_error_message`, is one too); each `tool_use` block is a
 *   tool-call step, its command the `command` of a `Bash` call (other tools, `Write` or `Edit`,
 *   run no shell command: null). `thinking` blocks are not said to the user: skipped.
 * - `user` lines: each `tool_result` block is a tool-result step (content a string or a list of
 *   text blocks; Claude Code reports no exit code). A plain user message is skipped.
 * - `result` line: its `duration_ms`; when it reports an error, its text is a message step too
 *   (unless the last message already said it).
 *
 * Any other line (not JSON, another type, a wrong shape) counts as unread; reading never throws.
 *
 * @module
 */
import type { EVENT, EventPayload } from "../store/event_catalogue.ts";
import type { TranscriptStep } from "../store/events/agent_events.ts";
import { isObject, type Json, jsonLines, jsonText, stringOr } from "./_transcript_lines.ts";

/** The name of Claude Code's shell tool, whose `command` input is the command it runs. */
const SHELL_TOOL = "Bash";

/**
 * Reads Claude Code's stream-json stdout.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readClaudeCodeTranscript } from "./claude_code_transcript.ts";
 * const stdout = [
 *   { type: "system", subtype: "init" },
 *   {
 *     type: "assistant",
 *     message: { content: [{ type: "tool_use", id: "t1", name: "Bash", input: { command: "ls" } }] },
 *   },
 *   {
 *     type: "user",
 *     message: { content: [{ type: "tool_result", tool_use_id: "t1", content: "a.txt" }] },
 *   },
 *   { type: "result", subtype: "success", is_error: false, duration_ms: 1200 },
 * ].map((line) => JSON.stringify(line)).join("\n");
 * const transcript = readClaudeCodeTranscript(stdout);
 * assert.equal(transcript.steps.length, 2);
 * assert.deepEqual(transcript.steps[0], {
 *   type: "tool_call", id: "t1", name: "Bash", command: "ls", input: '{"command":"ls"}',
 * });
 * assert.equal(transcript.duration_ms, 1200);
 * assert.equal(transcript.unread_lines, 0);
 * ```
 */
export function readClaudeCodeTranscript(
  stdout: string,
): Omit<EventPayload<typeof EVENT.agentTranscript>, "agent"> {
  const steps: TranscriptStep[] = [];
  let durationMs: number | null = null;
  let unread = 0;
  for (const line of jsonLines(stdout)) {
    const read = line === undefined ? false : readLine(line, steps);
    if (read === false) unread++;
    else if (read !== true) durationMs = read.durationMs ?? durationMs;
  }
  return { steps, duration_ms: durationMs, unread_lines: unread };
}

/** Reads one line into `steps`: true when read, false when unread, or what a result line says. */
function readLine(line: Json, steps: TranscriptStep[]): boolean | { durationMs: number | null } {
  switch (line.type) {
    case "system":
      return true;
    case "assistant":
      return readBlocks(line, steps, assistantStep);
    case "user":
      return isObject(line.message) && typeof line.message.content === "string"
        ? true
        : readBlocks(line, steps, userStep);
    case "result":
      return readResult(line, steps);
    default:
      return false;
  }
}

/** Reads a message's content blocks, each with `step`; false when the line has no such list. */
function readBlocks(
  line: Json,
  steps: TranscriptStep[],
  step: (block: Json) => TranscriptStep | undefined,
): boolean {
  const content = isObject(line.message) ? line.message.content : undefined;
  if (!Array.isArray(content)) return false;
  for (const block of content) {
    const read = isObject(block) ? step(block) : undefined;
    if (read) steps.push(read);
  }
  return true;
}

function assistantStep(block: Json): TranscriptStep | undefined {
  if (block.type === "text" && typeof block.text === "string" && block.text.trim() !== "") {
    return { type: "message", text: block.text };
  }
  if (block.type !== "tool_use") return undefined;
  const name = stringOr(block.name, "");
  const command = name === SHELL_TOOL && isObject(block.input)
    ? stringOr(block.input.command, null)
    : null;
  return {
    type: "tool_call",
    id: stringOr(block.id, ""),
    name,
    command,
    input: jsonText(block.input ?? {}),
  };
}

function userStep(block: Json): TranscriptStep | undefined {
  if (block.type !== "tool_result") return undefined;
  return {
    type: "tool_result",
    id: stringOr(block.tool_use_id, ""),
    output: resultText(block.content),
    is_error: block.is_error === true,
    exit_code: null,
  };
}

/** A tool result's content: a string, or the text of its text blocks (images and others left out). */
function resultText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .filter((part): part is Json => isObject(part) && typeof part.text === "string")
    .map((part) => part.text)
    .join("\n");
}

function readResult(line: Json, steps: TranscriptStep[]): { durationMs: number | null } {
  const failed = line.is_error === true || String(line.subtype ?? "").startsWith("error");
  if (failed) {
    const text = errorText(line);
    const said = steps.findLast((step) => step.type === "message");
    if (said?.type !== "message" || said.text !== text) steps.push({ type: "message", text });
  }
  const duration = line.duration_ms;
  return {
    durationMs: typeof duration === "number" && Number.isFinite(duration) && duration >= 0
      ? duration
      : null,
  };
}

/** What a failed result says: its `result` text, its `errors`, or its subtype. */
function errorText(line: Json): string {
  if (typeof line.result === "string" && line.result.trim() !== "") return line.result;
  const errors = Array.isArray(line.errors)
    ? line.errors.filter((error): error is string => typeof error === "string")
    : [];
  if (errors.length > 0) return errors.join("\n");
  return `Claude Code ended with an error (${stringOr(line.subtype, "no subtype")})`;
}
