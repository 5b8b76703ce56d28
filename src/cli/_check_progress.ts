/**
 * Progress of `tasks check`, whose runs (oracle, nop, the controls) go at the same time: a line
 * per run as it starts; then, on a terminal, one status line redrawn in place (trials done of
 * all the runs' total, elapsed), otherwise one plain line per finished trial naming its agent.
 *
 * @module
 */
import type { Clock } from "../core/clock.ts";
import type { CheckProgress } from "../eval/run/tasks_check.ts";
import type { Io } from "./io.ts";

/**
 * A check's progress display writing to `write`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { checkProgressDisplay } from "./_check_progress.ts";
 * import { memoryIo } from "./io.ts";
 * import { LogicalClock } from "../core/clock.ts";
 * const io = memoryIo();
 * const progress = checkProgressDisplay(io.out, false, new LogicalClock());
 * progress.runStarted("nop", "abc", 2);
 * assert.equal(io.stdout(), "run abc: 2 trials, agent nop\n");
 * ```
 */
export function checkProgressDisplay(
  write: Io["out"],
  terminal: boolean,
  clock: Clock,
): CheckProgress {
  const started = clock.monotonic();
  let total = 0;
  let done = 0;
  const status = () => {
    const seconds = Math.floor((clock.monotonic() - started) / 1000);
    return `[${done}/${total}] trials · ${String(Math.floor(seconds / 60)).padStart(2, "0")}:${
      String(seconds % 60).padStart(2, "0")
    }`;
  };
  const clear = terminal ? "\r\x1b[K" : "";
  return {
    runStarted(agent, run, trials) {
      total += trials;
      write(`${clear}run ${run}: ${trials} trial${trials === 1 ? "" : "s"}, agent ${agent}\n`);
      if (terminal) write(status());
    },
    trialFinished(agent, trial) {
      done++;
      if (terminal) {
        write(`${clear}${status()}`);
        return;
      }
      const outcome = trial.verdict === "pass" ? "pass" : `fail (${trial.bucket}: ${trial.reason})`;
      write(
        `[${done}/${total}] ${agent} ${trial.task} ${outcome} ${
          (trial.duration_ms / 1000).toFixed(1)
        }s\n`,
      );
    },
  };
}
