/**
 * The real clock, and the platform's entropy for secrets. This is the only module under `src/` the
 * determinism lint lets read the wall clock, a high-resolution timer or entropy; everything else
 * receives a {@linkcode Clock} (and a seeded RNG).
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

/**
 * A fresh secret from the platform's entropy, as 43 base64url characters (256 bits): for a token
 * that guards a local server, never for anything recorded.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { systemSecret } from "./system_clock.ts";
 * assert.match(systemSecret(), /^[A-Za-z0-9_-]{43}$/);
 * assert.notEqual(systemSecret(), systemSecret());
 * ```
 */
export function systemSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(
    /=+$/,
    "",
  );
}
