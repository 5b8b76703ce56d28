/**
 * The real clock. This is the only module under `src/` the determinism lint lets read the wall
 * clock or a high-resolution timer; everything else receives a {@linkcode Clock}.
 *
 * @module
 */
import type { Clock } from "./clock.ts";

/**
 * The system's clock: `Date.now()`, `performance.now()` and real timers.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { systemClock } from "./system_clock.ts";
 * const start = systemClock.monotonic();
 * await systemClock.sleep(1);
 * assert(systemClock.monotonic() >= start);
 * ```
 */
export const systemClock: Clock = {
  now: () => Date.now(),
  monotonic: () => performance.now(),
  sleep: (ms, signal) =>
    new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const onAbort = () => {
        clearTimeout(timer);
        reject(signal?.reason);
      };
      const timer = setTimeout(() => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      }, Math.max(0, ms));
      signal?.addEventListener("abort", onAbort, { once: true });
    }),
};
