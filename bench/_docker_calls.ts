/**
 * A `Docker` that remembers every call it makes (its first argument, when it started and ended),
 * and the critical path through them: the calls a run waited on one after another.
 *
 * @module
 */
import { Docker } from "../src/engine/docker.ts";

/** One docker call: its subcommand and its span, in `performance.now()` milliseconds. */
export interface DockerCall {
  command: string;
  start: number;
  end: number;
}

/**
 * A `Docker` that logs its calls into `calls` (clear it between measurements). Every call, `run`
 * and `text` included, starts a process through `spawn`, so that is where each is counted.
 */
export class CountingDocker extends Docker {
  /** Every call so far, in the order they started. */
  readonly calls: DockerCall[] = [];

  override spawn(
    args: readonly string[],
    options?: { stdin?: boolean; signal?: AbortSignal },
  ): Deno.ChildProcess {
    const child = super.spawn(args, options);
    const call = { command: subcommand(args), start: performance.now(), end: Number.NaN };
    this.calls.push(call);
    child.status.finally(() => call.end = performance.now());
    return child;
  }
}

function subcommand(args: readonly string[]): string {
  return args[0] === "image" || args[0] === "container" ? `${args[0]} ${args[1]}` : args[0];
}

/**
 * The critical path through calls made one trial at a time: from the call that ended last, back
 * through the call that ended latest before it started, and so on. A call that ran beside
 * another (a container started ahead, a removal left to finish on its own) is not on it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { criticalPath } from "./_docker_calls.ts";
 * const calls = [
 *   { command: "run", start: 0, end: 5 },
 *   { command: "run", start: 1, end: 9 }, // started ahead, beside the first
 *   { command: "exec", start: 10, end: 12 },
 * ];
 * assert.deepEqual(criticalPath(calls).map((call) => call.end), [9, 12]);
 * ```
 */
export function criticalPath(calls: readonly DockerCall[]): DockerCall[] {
  const done = calls.filter((call) => Number.isFinite(call.end));
  const path: DockerCall[] = [];
  let current = done.reduce<DockerCall | undefined>(
    (last, call) => last === undefined || call.end > last.end ? call : last,
    undefined,
  );
  while (current !== undefined) {
    path.unshift(current);
    const before: number = current.start;
    current = done.reduce<DockerCall | undefined>(
      (last, call) =>
        call.end <= before && (last === undefined || call.end > last.end) ? call : last,
      undefined,
    );
  }
  return path;
}
