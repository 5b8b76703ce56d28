/**
 * Helpers shared by the benchmarks.
 *
 * @module
 */
import { join } from "node:path";

/** The q-quantile (0..1) of samples, by the nearest-rank method. */
export function percentile(samples: readonly number[], q: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank];
}

/** The median of samples. */
export function median(samples: readonly number[]): number {
  return percentile(samples, 0.5);
}

/** A scratch folder under `tests/.artifacts/` (inside the CLI's permission set), removed on dispose. */
export async function scratchFolder(
  prefix: string,
): Promise<{ path: string; [Symbol.asyncDispose](): Promise<void> }> {
  const root = join(new URL("..", import.meta.url).pathname, "tests", ".artifacts");
  await Deno.mkdir(root, { recursive: true });
  const path = await Deno.makeTempDir({ dir: root, prefix: `${prefix}-` });
  return { path, [Symbol.asyncDispose]: () => Deno.remove(path, { recursive: true }) };
}
