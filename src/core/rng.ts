/**
 * SplitMix64: a small, fast, well-studied 64-bit generator. Every random choice Verdict makes comes
 * from one of these, seeded from the run's seed, so a trajectory is a function of its inputs.
 * Independent streams are derived by label through sha256, so adding a draw to one stream never
 * shifts the draws of another.
 *
 * @module
 */
import { sha256Bytes } from "./hash.ts";

const MASK64 = (1n << 64n) - 1n;
const GOLDEN_GAMMA = 0x9e3779b97f4a7c15n;

/** A seeded source of random numbers. */
export interface Rng {
  /** The next 64-bit value. */
  nextUint64(): bigint;
  /** A float in [0, 1) with 53 random bits. */
  nextFloat(): number;
  /** An integer in [0, bound), without modulo bias. */
  nextInt(bound: number): number;
  /** An independent generator for a labelled purpose. */
  stream(label: string): Rng;
}

/**
 * SplitMix64 (Steele, Lea and Flood, 2014).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { SplitMix64 } from "./rng.ts";
 * const rng = new SplitMix64(42n);
 * const again = new SplitMix64(42n);
 * assert(rng.nextUint64() === again.nextUint64());
 * const faults = rng.stream("faults");
 * assert(faults.nextFloat() < 1);
 * ```
 */
export class SplitMix64 implements Rng {
  #state: bigint;
  readonly #seed: bigint;

  /** Makes a generator from a seed; numbers are reduced to 64 bits. */
  constructor(seed: bigint | number) {
    this.#seed = BigInt.asUintN(64, BigInt(seed));
    this.#state = this.#seed;
  }

  /** The next 64-bit value. */
  nextUint64(): bigint {
    this.#state = (this.#state + GOLDEN_GAMMA) & MASK64;
    let z = this.#state;
    z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK64;
    z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & MASK64;
    return z ^ (z >> 31n);
  }

  /** A float in [0, 1) built from the top 53 bits. */
  nextFloat(): number {
    return Number(this.nextUint64() >> 11n) / 2 ** 53;
  }

  /** An integer in [0, bound), by rejection so every value is equally likely. */
  nextInt(bound: number): number {
    if (!Number.isSafeInteger(bound) || bound <= 0) {
      throw new RangeError(`nextInt bound must be a positive safe integer, got ${bound}`);
    }
    const range = BigInt(bound);
    const limit = (1n << 64n) - ((1n << 64n) % range);
    for (;;) {
      const value = this.nextUint64();
      if (value < limit) return Number(value % range);
    }
  }

  /** A generator seeded by sha256 of this generator's seed and the label. */
  stream(label: string): SplitMix64 {
    return new SplitMix64(deriveSeed(this.#seed, label));
  }
}

/**
 * Derives a 64-bit seed from a parent seed and a label, through sha256.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { deriveSeed } from "./rng.ts";
 * assert(deriveSeed(1n, "a") !== deriveSeed(1n, "b"));
 * ```
 */
export function deriveSeed(parent: bigint | number, label: string): bigint {
  const digest = sha256Bytes(`verdict.rng/1\n${BigInt.asUintN(64, BigInt(parent))}\n${label}`);
  return new DataView(digest.buffer, digest.byteOffset, 8).getBigUint64(0);
}
