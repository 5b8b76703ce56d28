/**
 * Doubles for tests and examples that need no Docker and no network: the container engine in
 * memory, a logical clock, and the scripted model (deterministic for a task and a seed).
 *
 * @example An eval on the engine in memory, on a logical clock
 * ```ts
 * import assert from "node:assert/strict";
 * import { runEval } from "./mod.ts";
 * import { LogicalClock, MemorySandbox } from "./testing.ts";
 * const home = await Deno.makeTempDir();
 * const sandbox = new MemorySandbox();
 * const { run } = await runEval(
 *   { paths: ["tasks/fix-slugify"], agent: "nop", home },
 *   { sandbox, clock: new LogicalClock() },
 * );
 * assert.equal(run.status, "finished");
 * assert.equal(sandbox.live().length, 0); // every container removed
 * await Deno.remove(home, { recursive: true });
 * ```
 *
 * @module
 */
export {
  type ExecHandler,
  type ExecRequest,
  type MemoryContainer,
  MemorySandbox,
  type MemorySandboxOptions,
  type SandboxOperation,
} from "./src/engine/memory_sandbox.ts";
export { MemoryFiles, type MemoryNode } from "./src/engine/memory_files.ts";
export { LogicalClock, type LogicalClockOptions } from "./src/core/clock.ts";
export {
  type Fault,
  FAULTS,
  scriptedModel,
  type ScriptedModelOptions,
} from "./src/model/scripted.ts";
export { heuristicCounter, type TokenCounter } from "./src/model/tokens.ts";
