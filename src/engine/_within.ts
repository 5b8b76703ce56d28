/**
 * Waits for a promise for at most a while, without leaving a timer behind.
 *
 * @module
 */

/** Resolves with the promise's value, or with `fallback` after `ms`, whichever comes first. */
export async function within<T, F>(promise: Promise<T>, ms: number, fallback: F): Promise<T | F> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<F>((resolve) => (timer = setTimeout(() => resolve(fallback), ms))),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
