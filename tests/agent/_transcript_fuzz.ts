import assert from "node:assert/strict";
import { EVENT, EVENT_SCHEMAS, type EventPayload } from "../../src/store/event_catalogue.ts";

type Reader = (stdout: string) => Omit<EventPayload<typeof EVENT.agentTranscript>, "agent">;

/** Asserts a transcript is a payload the event catalogue accepts. */
export function assertRecordable(
  transcript: Omit<EventPayload<typeof EVENT.agentTranscript>, "agent">,
): void {
  const parsed = EVENT_SCHEMAS[EVENT.agentTranscript].safeParse({ agent: "a", ...transcript });
  assert(parsed.success, parsed.error?.message);
}

/**
 * Reads damaged versions of `stdout` (each line cut at several points, lines with their fields
 * given wrong types) and asserts each reads without throwing into a recordable payload.
 */
export function assertSurvivesDamage(read: Reader, stdout: string): void {
  const lines = stdout.split("\n").filter((line) => line !== "");
  for (const [index, line] of lines.entries()) {
    for (const cut of [1, 7, Math.floor(line.length / 2), line.length - 1]) {
      const damaged = lines.with(index, line.slice(0, cut)).join("\n");
      const transcript = read(damaged);
      assertRecordable(transcript);
      assert(transcript.unread_lines >= 1, `a line cut at ${cut} is unread`);
    }
    const value = JSON.parse(line);
    for (const key of Object.keys(value)) {
      for (const wrong of [null, 3, "x", [], {}, [null, 1, "y", {}]]) {
        const retyped = lines.with(index, JSON.stringify({ ...value, [key]: wrong })).join("\n");
        assertRecordable(read(retyped));
      }
    }
    for (const nested of ["message", "item"]) {
      if (value[nested] === null || typeof value[nested] !== "object") continue;
      for (const key of Object.keys(value[nested])) {
        for (const wrong of [null, -1, 1.5, "x", [], {}, [null, 1, "y", {}]]) {
          const retyped = { ...value, [nested]: { ...value[nested], [key]: wrong } };
          assertRecordable(read(lines.with(index, JSON.stringify(retyped)).join("\n")));
        }
      }
    }
  }
  for (const odd of ["", "\n\n", "null", "[]", '"text"', "42", "{}", '{"type":7}']) {
    assertRecordable(read(odd));
  }
}
