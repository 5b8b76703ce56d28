/**
 * "Did you mean …?" for mistyped commands, flags, task ids and run ids.
 *
 * @module
 */

/**
 * The candidate nearest to `input` by edit distance, if it is near enough to be a likely typo
 * (at most a third of the input's length, and at least 1, edits away), or a candidate that starts
 * with the input.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { nearest } from "./suggest.ts";
 * assert(nearest("evl", ["eval", "verify"]) === "eval");
 * assert(nearest("zzz", ["eval", "verify"]) === undefined);
 * ```
 */
export function nearest(input: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const distance = candidate.startsWith(input) && input.length >= 2
      ? 0.5
      : editDistance(input, candidate);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return bestDistance <= Math.max(1, Math.floor(input.length / 3)) ? best : undefined;
}

/**
 * Levenshtein distance, counting an adjacent transposition as one edit.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { editDistance } from "./suggest.ts";
 * assert(editDistance("repaet", "repeat") === 1);
 * ```
 */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) => [i, ...new Array(cols - 1).fill(0)]);
  for (let j = 0; j < cols; j++) d[0][j] = j;
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[a.length][b.length];
}
