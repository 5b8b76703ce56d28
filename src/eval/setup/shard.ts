/**
 * Shards: `--shard K/N` runs a deterministic slice of an experiment's trials. The slice is by task
 * (a task's repeats stay together): the task ids are sorted, and the task at position `i` goes to
 * shard `i mod N + 1`. Round-robin over sorted ids spreads tasks of one family (`shell-*`, ...)
 * over all shards, so shards take about the same time; and it depends only on the experiment's
 * task ids, so every machine computes the same slice.
 *
 * @module
 */
import { UsageError } from "../../core/errors.ts";

/** One shard of an experiment: `index` of `count`, from 1. */
export interface Shard {
  /** Which shard, from 1 to `count`. */
  index: number;
  /** How many shards the experiment is split into. */
  count: number;
}

const SHARD_PATTERN = /^\s*(\d+)\s*\/\s*(\d+)\s*$/;

/**
 * Parses `--shard K/N` (1 ≤ K ≤ N).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseShard } from "./shard.ts";
 * assert.deepEqual(parseShard("2/3"), { index: 2, count: 3 });
 * assert.throws(() => parseShard("4/3"), /--shard 4\/3/);
 * ```
 * @throws {UsageError} naming the flag and the fix when the value is not K/N with 1 ≤ K ≤ N.
 */
export function parseShard(text: string): Shard {
  const match = SHARD_PATTERN.exec(text);
  const index = match ? Number(match[1]) : NaN;
  const count = match ? Number(match[2]) : NaN;
  if (
    !Number.isSafeInteger(index) || !Number.isSafeInteger(count) || count < 1 || index < 1 ||
    index > count
  ) {
    throw new UsageError(
      `--shard ${text} is not a shard: give K/N, shard K of N, with 1 <= K <= N (such as ` +
        `--shard 1/3, --shard 2/3 and --shard 3/3 for three machines)`,
    );
  }
  return { index, count };
}

/**
 * The ids of the tasks a shard runs, in sorted order: of the sorted ids, those at positions `i`
 * with `i mod count = index - 1`. Every id is in exactly one shard of a given count; a shard may be
 * empty when there are fewer tasks than shards.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { shardTaskIds } from "./shard.ts";
 * const ids = ["d", "a", "c", "b", "e"];
 * assert.deepEqual(shardTaskIds(ids, { index: 1, count: 2 }), ["a", "c", "e"]);
 * assert.deepEqual(shardTaskIds(ids, { index: 2, count: 2 }), ["b", "d"]);
 * ```
 */
export function shardTaskIds(ids: readonly string[], shard: Shard): string[] {
  return [...ids].sort().filter((_, position) => position % shard.count === shard.index - 1);
}

/**
 * The tasks of a shard, in the order given (an absent shard keeps them all).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { shardTasks } from "./shard.ts";
 * const tasks = [{ id: "b" }, { id: "a" }, { id: "c" }];
 * assert.deepEqual(shardTasks(tasks, { index: 1, count: 2 }), [{ id: "a" }, { id: "c" }]);
 * assert.equal(shardTasks(tasks, undefined).length, 3);
 * ```
 */
export function shardTasks<T extends { id: string }>(
  tasks: readonly T[],
  shard: Shard | undefined,
): T[] {
  if (shard === undefined) return [...tasks];
  const taken = new Set(shardTaskIds(tasks.map((task) => task.id), shard));
  return tasks.filter((task) => taken.has(task.id));
}

/**
 * `K/N`, as the flag takes it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { shardLabel } from "./shard.ts";
 * assert.equal(shardLabel({ index: 2, count: 3 }), "2/3");
 * ```
 */
export function shardLabel(shard: Shard): string {
  return `${shard.index}/${shard.count}`;
}
