/**
 * Reading an agent's request body field by field: each reader names the JSON path of what it
 * refuses, so a malformed request is answered with HTTP 400 naming the field, never a crash.
 *
 * @module
 */

/**
 * A request body the gateway cannot read; `field` is the JSON path of the culprit.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { WireRequestError } from "./_wire_fields.ts";
 * assert.equal(new WireRequestError("model", "is missing").message, "model is missing");
 * ```
 */
export class WireRequestError extends Error {
  /** The JSON path of the field at fault, such as `messages[2].content`. */
  readonly field: string;

  /**
   * @param field The JSON path of the field at fault.
   * @param problem What is wrong with it, completing "FIELD …", such as `is missing`.
   */
  constructor(field: string, problem: string) {
    super(`${field} ${problem}`);
    this.name = "WireRequestError";
    this.field = field;
  }
}

/** A JSON object. */
export type Json = Record<string, unknown>;

/**
 * Whether a value is a JSON object (not an array, not null).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isObject } from "./_wire_fields.ts";
 * assert(isObject({}) && !isObject([]) && !isObject(null));
 * ```
 */
export function isObject(value: unknown): value is Json {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/**
 * The object at `field`, or a {@linkcode WireRequestError}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { objectField } from "./_wire_fields.ts";
 * assert.throws(() => objectField(1, "body"), /body must be an object/);
 * ```
 */
export function objectField(value: unknown, field: string): Json {
  if (!isObject(value)) throw new WireRequestError(field, describe(value, "an object"));
  return value;
}

/**
 * The list at `field`, or a {@linkcode WireRequestError}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { arrayField } from "./_wire_fields.ts";
 * assert.throws(() => arrayField(undefined, "messages"), /messages is missing/);
 * ```
 */
export function arrayField(value: unknown, field: string): unknown[] {
  if (!Array.isArray(value)) throw new WireRequestError(field, describe(value, "a list"));
  return value;
}

/**
 * The text at `field`, or a {@linkcode WireRequestError}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { stringField } from "./_wire_fields.ts";
 * assert.equal(stringField("m", "model"), "m");
 * ```
 */
export function stringField(value: unknown, field: string): string {
  if (typeof value !== "string") throw new WireRequestError(field, describe(value, "a string"));
  return value;
}

/**
 * The text at `field`, or `fallback` when it is absent or null.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { optionalString } from "./_wire_fields.ts";
 * assert.equal(optionalString(null, "instructions", ""), "");
 * ```
 */
export function optionalString(value: unknown, field: string, fallback: string): string {
  return value === undefined || value === null ? fallback : stringField(value, field);
}

/**
 * The boolean at `field`, false when absent or null.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { optionalBoolean } from "./_wire_fields.ts";
 * assert.equal(optionalBoolean(undefined, "stream"), false);
 * ```
 */
export function optionalBoolean(value: unknown, field: string): boolean {
  if (value === undefined || value === null) return false;
  if (typeof value !== "boolean") throw new WireRequestError(field, describe(value, "a boolean"));
  return value;
}

/**
 * The positive integer at `field`, or `fallback` when it is absent or null.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { optionalPositiveInteger } from "./_wire_fields.ts";
 * assert.throws(() => optionalPositiveInteger(0, "max_tokens", 1), /max_tokens must be/);
 * ```
 */
export function optionalPositiveInteger(value: unknown, field: string, fallback: number): number {
  if (value === undefined || value === null) return fallback;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 1) {
    throw new WireRequestError(field, describe(value, "a positive integer"));
  }
  return value;
}

function describe(value: unknown, wanted: string): string {
  return value === undefined ? `is missing (expected ${wanted})` : `must be ${wanted}`;
}

/**
 * Tool arguments as JSON text: kept as sent when text, serialized when an object.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { argumentsText } from "./_wire_fields.ts";
 * assert.equal(argumentsText({ a: 1 }, "arguments"), '{"a":1}');
 * ```
 */
export function argumentsText(value: unknown, field: string): string {
  if (typeof value === "string") return value;
  if (value === undefined || value === null) return "{}";
  if (isObject(value)) return JSON.stringify(value);
  throw new WireRequestError(field, "must be a JSON object or its text");
}
