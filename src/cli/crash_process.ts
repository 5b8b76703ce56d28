/**
 * The process end of the scripted model's crash knob (`--model scripted:crash=POINT@STEP`): the
 * run stops as a killed process would, so resume can be tested against a real crash.
 *
 * @module
 */

/**
 * What the scripted model's crash knob does: say where it stops on stderr, wait five seconds (so
 * a test can send a real SIGKILL at exactly that point), then exit 137 as a killed process would,
 * with no cleanup.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { crashProcess } from "./crash_process.ts";
 * import { memoryIo } from "./io.ts";
 * const onCrash = crashProcess(memoryIo({})); // called, it never returns: the process exits
 * assert.equal(typeof onCrash, "function");
 * ```
 */
export function crashProcess(
  io: { err(text: string): void },
): (point: string, step: number) => Promise<void> {
  return async (point, step) => {
    io.err(
      `verdict: crash knob: the process stops at ${point}${
        point === "grading" ? "" : ` of step ${step}`
      }\n`,
    );
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    Deno.exit(137);
  };
}
