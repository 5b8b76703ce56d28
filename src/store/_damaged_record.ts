/**
 * A stored row that cannot be read back (JSON that does not parse, an event whose content no
 * longer matches its hash) is a damaged record: exit 1 and "run verify", never a `SyntaxError`.
 *
 * @module
 */
import { CorruptionError } from "../core/errors.ts";

/**
 * The error for a damaged record at `where`, pointing at `verify` for the run that holds it (looked
 * up only now when `run` is a function).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { damagedRecord } from "./_damaged_record.ts";
 * const error = damagedRecord("session s1, event 3", "its payload is not JSON", "r1");
 * assert(error.message.startsWith("the record is damaged: session s1, event 3"));
 * ```
 */
export function damagedRecord(where: string, what: string, run: RunOf): CorruptionError {
  const id = typeof run === "function" ? run() : run;
  return new CorruptionError(
    `the record is damaged: ${where}: ${what}. Run 'verdict verify ${id ?? "RUN"}' to see the ` +
      `damage`,
  );
}

/** The run that holds a record, or a way to look it up only when it is needed. */
export type RunOf = string | undefined | (() => string | undefined);

/**
 * Parses a JSON column written by the store; a value that is not a string of JSON (of the
 * expected shape) is a damaged record.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseStoredJson } from "./_damaged_record.ts";
 * assert((parseStoredJson('{"a":1}', "x", "r", "object") as { a: number }).a === 1);
 * ```
 */
export function parseStoredJson(
  text: unknown,
  where: string,
  run: RunOf,
  shape: "object" | "any" = "any",
): unknown {
  let value: unknown;
  try {
    if (typeof text !== "string") throw new TypeError("not text");
    value = JSON.parse(text);
  } catch {
    throw damagedRecord(where, "it is not valid JSON", run);
  }
  if (shape === "object" && (value === null || typeof value !== "object" || Array.isArray(value))) {
    throw damagedRecord(where, "it is not a JSON object", run);
  }
  return value;
}
