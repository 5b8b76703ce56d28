import assert from "node:assert/strict";
import { deriveSeed, SplitMix64 } from "../../src/core/rng.ts";

Deno.test("SplitMix64 matches the reference implementation's outputs", () => {
  // Outputs of Vigna's splitmix64.c for seeds 0 and 1234567.
  const zero = new SplitMix64(0n);
  assert.deepEqual(zero.nextUint64(), 0xe220a8397b1dcdafn);
  assert.deepEqual(zero.nextUint64(), 0x6e789e6aa1b965f4n);
  const seeded = new SplitMix64(1234567);
  assert.deepEqual(
    [1, 2, 3, 4, 5].map(() => seeded.nextUint64()),
    [
      6457827717110365317n,
      3203168211198807973n,
      9817491932198370423n,
      4593380528125082431n,
      16408922859458223821n,
    ],
  );
});

Deno.test("labelled streams are reproducible and independent of each other's draws", () => {
  const a = new SplitMix64(7n);
  const b = new SplitMix64(7n);
  a.nextUint64(); // drawing from the parent first does not shift a labelled stream
  a.stream("jitter").nextUint64(); // nor does drawing from another stream
  const faultsA = a.stream("faults");
  const faultsB = b.stream("faults");
  assert.deepEqual(faultsA.nextUint64(), faultsB.nextUint64());
  assert.notDeepEqual(
    new SplitMix64(7n).stream("x").nextUint64(),
    new SplitMix64(7n).stream("y").nextUint64(),
  );
  assert.notDeepEqual(deriveSeed(1n, "a"), deriveSeed(2n, "a"));
});

Deno.test("floats lie in [0, 1) and integers in [0, bound) with every value reachable", () => {
  const rng = new SplitMix64(99n);
  const seen = new Set<number>();
  for (let i = 0; i < 2000; i++) {
    const float = rng.nextFloat();
    if (float < 0 || float >= 1) throw new Error(`float ${float} out of range`);
    seen.add(rng.nextInt(6));
  }
  assert.deepEqual([...seen].sort(), [0, 1, 2, 3, 4, 5]);
  assert.throws(() => rng.nextInt(0), RangeError);
});
