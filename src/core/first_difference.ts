/**
 * The first place two JSON values differ, as a path a person can read (`messages[3].content`),
 * with the two values at that place; long strings are cut around the first differing character.
 *
 * @module
 */

/** Where two values first differ. */
export interface Difference {
  /** The path, such as `system` or `messages[2].toolCalls[0].arguments`. */
  path: string;
  /** The value on the left (expected), as JSON. */
  expected: string;
  /** The value on the right (actual), as JSON. */
  actual: string;
}

/**
 * Finds the first difference, or undefined when the values are equal. Objects are compared key
 * by key in sorted order, arrays element by element.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { firstDifference } from "./first_difference.ts";
 * const difference = firstDifference({ a: [1, { b: "x" }] }, { a: [1, { b: "y" }] });
 * assert.deepEqual(difference, {
 *   path: "a[1].b",
 *   expected: '"x" (character 1)',
 *   actual: '"y" (character 1)',
 * });
 * ```
 */
export function firstDifference(
  expected: unknown,
  actual: unknown,
  path = "",
): Difference | undefined {
  if (Object.is(expected, actual)) return undefined;
  const bothArrays = Array.isArray(expected) && Array.isArray(actual);
  const bothObjects = isRecord(expected) && isRecord(actual);
  if (bothArrays) {
    const [left, right] = [expected as unknown[], actual as unknown[]];
    for (let index = 0; index < Math.max(left.length, right.length); index++) {
      const difference = firstDifference(left[index], right[index], `${path}[${index}]`);
      if (difference) return difference;
    }
    return undefined;
  }
  if (bothObjects) {
    const [left, right] = [expected as Record<string, unknown>, actual as Record<string, unknown>];
    for (const key of [...new Set([...Object.keys(left), ...Object.keys(right)])].sort()) {
      const difference = firstDifference(left[key], right[key], path ? `${path}.${key}` : key);
      if (difference) return difference;
    }
    return undefined;
  }
  if (typeof expected === "string" && typeof actual === "string") {
    const [left, right] = excerpts(expected, actual);
    return { path: path || "(value)", expected: left, actual: right };
  }
  return { path: path || "(value)", expected: show(expected), actual: show(actual) };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function show(value: unknown): string {
  return value === undefined ? "(absent)" : JSON.stringify(value);
}

const CONTEXT = 40;

function excerpts(left: string, right: string): [string, string] {
  let at = 0;
  while (at < left.length && at < right.length && left[at] === right[at]) at++;
  const cut = (text: string) => {
    const start = Math.max(0, at - CONTEXT);
    const end = Math.min(text.length, at + CONTEXT);
    return (start > 0 ? "…" : "") + JSON.stringify(text.slice(start, end)) +
      (end < text.length ? "…" : "") +
      ` (character ${at + 1})`;
  };
  return [cut(left), cut(right)];
}
