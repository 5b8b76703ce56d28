/**
 * A compile-time check that two types are the same, used to hold a zod schema to the documented
 * interface it validates: a field added to, dropped from or retyped in either one fails
 * `deno check`.
 *
 * ```ts
 * import { z } from "zod";
 * import type { Expect, Same } from "./same_type.ts";
 * interface Gate {
 *   max_drop_pp: number;
 * }
 * const GATE_SCHEMA = z.strictObject({ max_drop_pp: z.number().min(0) });
 * type _SchemaMatchesGate = Expect<Same<z.output<typeof GATE_SCHEMA>, Gate>>;
 * ```
 *
 * @module
 */

/** `true` when `A` and `B` are the same type (not merely assignable to each other), else `false`. */
export type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2)
  ? true
  : false;

/** Compiles only when `T` is `true`. */
export type Expect<T extends true> = T;
