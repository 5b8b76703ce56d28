/**
 * Canonical JSON: the one byte string a value hashes as. Object keys are sorted by UTF-16 code
 * units, there is no insignificant whitespace, and values JSON cannot represent exactly (NaN,
 * Infinity, undefined, functions, symbols, bigints, class instances) or cycles are refused rather
 * than silently dropped.
 *
 * @module
 */

/** A value canonical JSON accepts. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/**
 * Serializes a value as canonical JSON.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { canonicalJson } from "./canonical_json.ts";
 * assert(canonicalJson({ b: 1, a: [true, null] }) === '{"a":[true,null],"b":1}');
 * ```
 * @throws {TypeError} when the value holds something JSON cannot represent exactly, or a cycle.
 */
export function canonicalJson(value: unknown): string {
  return write(value, new Set(), "$");
}

/**
 * Canonical JSON as UTF-8 bytes.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { canonicalBytes } from "./canonical_json.ts";
 * assert(canonicalBytes([1]).length === 3);
 * ```
 */
export function canonicalBytes(value: unknown): Uint8Array {
  return new TextEncoder().encode(canonicalJson(value));
}

function write(value: unknown, ancestors: Set<object>, path: string): string {
  switch (typeof value) {
    case "string":
      return JSON.stringify(value);
    case "boolean":
      return value ? "true" : "false";
    case "number":
      if (!Number.isFinite(value)) {
        throw new TypeError(`canonical JSON refuses ${value} at ${path}`);
      }
      return JSON.stringify(value);
    case "object":
      return value === null ? "null" : writeContainer(value, ancestors, path);
    default:
      throw new TypeError(`canonical JSON refuses a value of type ${typeof value} at ${path}`);
  }
}

function writeContainer(value: object, ancestors: Set<object>, path: string): string {
  if (ancestors.has(value)) throw new TypeError(`canonical JSON refuses a cycle at ${path}`);
  ancestors.add(value);
  let json: string;
  if (Array.isArray(value)) {
    json = "[";
    for (let index = 0; index < value.length; index++) {
      if (index > 0) json += ",";
      json += write(value[index], ancestors, `${path}[${index}]`);
    }
    json += "]";
  } else {
    const prototype = Object.getPrototypeOf(value);
    if (prototype !== Object.prototype && prototype !== null) {
      const name = prototype?.constructor?.name ?? "unknown";
      throw new TypeError(`canonical JSON refuses an instance of ${name} at ${path}`);
    }
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record).sort();
    json = "{";
    for (let index = 0; index < keys.length; index++) {
      const key = keys[index];
      if (index > 0) json += ",";
      json += JSON.stringify(key) + ":" + write(record[key], ancestors, path + "." + key);
    }
    json += "}";
  }
  ancestors.delete(value);
  return json;
}
