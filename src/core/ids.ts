/**
 * Identifiers derived from canonical preimages. The same inputs always give the same id, on any
 * machine, in any process: no clock, no randomness, no process-salted state.
 *
 * @module
 */
import { canonicalJson } from "./canonical_json.ts";
import { sha256Hex } from "./hash.ts";

/**
 * Derives a short id: the first `length` hex characters of sha256 over a version tag and the
 * canonical JSON of the preimage. The tag (such as `verdict.run/1`) keeps ids of different kinds
 * and different preimage versions apart.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { deriveId } from "./ids.ts";
 * const a = deriveId("verdict.run/1", { seed: 1, tasks: ["x"] });
 * const b = deriveId("verdict.run/1", { tasks: ["x"], seed: 1 });
 * assert(a === b && a.length === 12);
 * ```
 */
export function deriveId(tag: string, preimage: unknown, length = 12): string {
  if (!/^[a-z0-9.]+\/[0-9]+$/.test(tag)) {
    throw new TypeError(`id tag '${tag}' must look like 'verdict.kind/1'`);
  }
  if (length < 8 || length > 64) throw new RangeError(`id length ${length} is outside 8..64`);
  return sha256Hex(`${tag}\n${canonicalJson(preimage)}`).slice(0, length);
}
