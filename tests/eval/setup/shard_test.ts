/**
 * The slicing rule of `--shard K/N` and its parsing: deterministic, a task's repeats together, the
 * shards of one split disjoint and together the whole list; a bad value is exit 2 naming the flag.
 */
import { recordedRunConfig } from "../../_run_config.ts";
import assert from "node:assert/strict";
import { CorruptionError, UsageError } from "../../../src/core/errors.ts";
import { runConfig } from "../../../src/eval/setup/run_identity.ts";
import { parseShard, type Shard, shardTaskIds, shardTasks } from "../../../src/eval/setup/shard.ts";
import { scratchDir } from "../../_verdict.ts";
import { runVerdictInProcess } from "../../cli/_in_process.ts";

const IDS = Array.from({ length: 23 }, (_, n) => `task-${String((n * 7) % 23).padStart(2, "0")}`);

function split(ids: readonly string[], count: number): string[][] {
  return Array.from(
    { length: count },
    (_, index) => shardTaskIds(ids, { index: index + 1, count }),
  );
}

Deno.test("the shards of one split are disjoint, cover every task, and differ in size by at most one", () => {
  for (const count of [1, 2, 3, 5, 23, 30]) {
    const shards = split(IDS, count);
    assert.deepEqual(shards.flat().sort(), [...IDS].sort(), `count ${count}: union`);
    assert.equal(new Set(shards.flat()).size, IDS.length, `count ${count}: disjoint`);
    const sizes = shards.map((shard) => shard.length);
    assert(Math.max(...sizes) - Math.min(...sizes) <= 1, `count ${count}: ${sizes}`);
  }
  // More shards than tasks: the last ones are empty, never an error.
  assert.deepEqual(split(["a", "b"], 4), [["a"], ["b"], [], []]);
});

Deno.test("a shard depends only on the task ids, not on their order: every machine slices alike", () => {
  const reversed = [...IDS].reverse();
  const shuffled = [...IDS].sort((a, b) =>
    a.slice(-1).localeCompare(b.slice(-1)) || a.localeCompare(b)
  );
  for (const shard of [{ index: 1, count: 3 }, { index: 3, count: 3 }] satisfies Shard[]) {
    assert.deepEqual(shardTaskIds(reversed, shard), shardTaskIds(IDS, shard));
    assert.deepEqual(shardTaskIds(shuffled, shard), shardTaskIds(IDS, shard));
  }
  // Round-robin over the sorted ids: a family of neighbouring ids is spread over the shards.
  assert.deepEqual(shardTaskIds(["a1", "a2", "a3", "b1", "b2", "b3"], { index: 1, count: 3 }), [
    "a1",
    "b1",
  ]);
});

Deno.test("shardTasks keeps whole tasks (so all their repeats) in the given order; without a shard, all", () => {
  const tasks = [{ id: "c", repeats: 3 }, { id: "a", repeats: 3 }, { id: "b", repeats: 3 }];
  assert.deepEqual(shardTasks(tasks, { index: 1, count: 2 }), [tasks[0], tasks[1]]);
  assert.deepEqual(shardTasks(tasks, { index: 2, count: 2 }), [tasks[2]]);
  assert.deepEqual(shardTasks(tasks, undefined), tasks);
});

Deno.test("parseShard takes K/N with 1 <= K <= N and refuses anything else, naming --shard", () => {
  assert.deepEqual(parseShard("1/1"), { index: 1, count: 1 });
  assert.deepEqual(parseShard(" 3 / 3 "), { index: 3, count: 3 });
  for (const bad of ["0/3", "4/3", "a/b", "1/0", "1", "1/3/5", "-1/3", "1.5/3", ""]) {
    assert.throws(
      () => parseShard(bad),
      (error) =>
        error instanceof UsageError &&
        error.message.startsWith(`--shard ${bad} is not a shard: give K/N, shard K of N, with 1`),
      bad,
    );
  }
});

Deno.test("a recorded shard parses; a record without one (every record before --shard) too; a damaged one is corruption", () => {
  const config = recordedRunConfig();
  assert.equal(runConfig({ id: "r", config }).shard, undefined);
  assert.deepEqual(
    runConfig({ id: "r", config: { ...config, shard: { index: 2, count: 2 } } }).shard,
    {
      index: 2,
      count: 2,
    },
  );
  assert.throws(
    () => runConfig({ id: "r", config: { ...config, shard: { index: 3, count: 2 } } }),
    (error) =>
      error instanceof CorruptionError && /run r \(config\), field shard/.test(error.message),
  );
});

Deno.test("verdict eval --shard with a bad value exits 2 naming the flag and the fix, before running anything", async () => {
  await using home = await scratchDir("shard_flag");
  for (const bad of ["0/3", "4/3", "a/b"]) {
    const result = await runVerdictInProcess([
      "eval",
      "tests/fixtures/bench/trivial",
      "--agent",
      "nop",
      "--shard",
      bad,
      "--home",
      home.path,
    ]);
    assert.equal(result.code, 2, result.stderr);
    assert.equal(
      result.stderr.trim(),
      `verdict: --shard ${bad} is not a shard: give K/N, shard K of N, with 1 <= K <= N (such as ` +
        "--shard 1/3, --shard 2/3 and --shard 3/3 for three machines)",
    );
  }
  assert.deepEqual([...Deno.readDirSync(home.path)], [], "nothing recorded");
});
