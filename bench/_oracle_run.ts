/**
 * The oracle over a suite through `evalSuite`, as `tasks check` runs it (no model, model-only
 * requirements waived), in a fresh state folder: what the suite and floor benchmarks time.
 *
 * @module
 */
import { oracleAgent } from "../src/agent/oracle.ts";
import { systemClock } from "../src/core/system_clock.ts";
import type { Sandbox } from "../src/engine/sandbox.ts";
import type { RunEngine } from "../src/eval/run/engine_seats.ts";
import { evalSuite } from "../src/eval/run/run_eval.ts";
import type { loadSuite } from "../src/task/load_suite.ts";
import { scratchFolder } from "./_measure.ts";

const ORACLE = {
  agent: oracleAgent,
  model: null,
  settings: null,
  needs: { model: false, solutions: true },
};

/**
 * Runs the oracle on `suite` (loaded from `paths`); how many trials passed. With `engines`, over
 * those (`--engine`), `concurrency` their slots.
 */
export async function oracleRun(
  sandbox: Sandbox,
  suite: Awaited<ReturnType<typeof loadSuite>>,
  paths: string[],
  concurrency: number,
  engines?: readonly RunEngine[],
): Promise<number> {
  await using home = await scratchFolder("bench-oracle");
  const { results } = await evalSuite(
    {
      paths,
      suite,
      tasks: suite.tasks,
      agent: ORACLE,
      repeat: 1,
      concurrency,
      seed: 0,
      home: home.path,
    },
    {
      sandbox,
      clock: systemClock,
      signal: new AbortController().signal,
      progress: { runStarted() {}, trialFinished() {} },
      waiveModelOnly: true,
      ...(engines ? { engines } : {}),
    },
  );
  return results.summary.passed;
}
