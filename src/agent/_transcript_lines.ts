/**
 * What the transcript readers share: an agent's stdout read as JSON lines, and guards that read a
 * field of an untrusted value without ever throwing.
 *
 * @module
 */

/** A JSON object. */
export type Json = Record<string, unknown>;

/**
 * The non-blank lines of `stdout`, each parsed: the object, or undefined for a line that is not a
 * JSON object (a truncated line, a log line the agent printed, an array).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { jsonLines } from "./_transcript_lines.ts";
 * assert.deepEqual(jsonLines('{"a":1}\n\nnot json\n[1]\n'), [{ a: 1 }, undefined, undefined]);
 * ```
 */
export function jsonLines(stdout: string): (Json | undefined)[] {
  return stdout.split("\n").filter((line) => line.trim() !== "").map((line) => {
    try {
      const value: unknown = JSON.parse(line);
      return isObject(value) ? value : undefined;
    } catch {
      return undefined;
    }
  });
}

/**
 * Whether a value is a JSON object (not null, not an array).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isObject } from "./_transcript_lines.ts";
 * assert(isObject({}) && !isObject([]) && !isObject(null));
 * ```
 */
export function isObject(value: unknown): value is Json {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/**
 * A value if it is a string, else the fallback.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { stringOr } from "./_transcript_lines.ts";
 * assert.equal(stringOr(3, ""), "");
 * ```
 */
export function stringOr<T>(value: unknown, fallback: T): string | T {
  return typeof value === "string" ? value : fallback;
}

/**
 * A value as JSON text, for a tool call's input (`{}` for a value JSON cannot write).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { jsonText } from "./_transcript_lines.ts";
 * assert.equal(jsonText({ command: "ls" }), '{"command":"ls"}');
 * assert.equal(jsonText(undefined), "{}");
 * ```
 */
export function jsonText(value: unknown): string {
  try {
    return JSON.stringify(value) ?? "{}";
  } catch {
    return "{}";
  }
}
