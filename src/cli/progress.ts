/**
 * Progress of a run: on a terminal, one status line redrawn in place (trials done of total,
 * passed and failed so far, elapsed, the time left at the pace so far, the trials running), with
 * each failure printed above it as it happens; otherwise one plain line per finished trial.
 *
 * @module
 */
import type { Clock } from "../core/clock.ts";
import type { RunConfig } from "../eval/setup/run_identity.ts";
import type { Progress } from "../eval/run/run_lifecycle.ts";
import type { RunRecord } from "../store/run_table.ts";
import type { TrialRecord } from "../store/trial_record.ts";
import type { Io } from "./io.ts";

/**
 * A progress display writing to `write` (stdout, or stderr when stdout carries JSON).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { progressDisplay } from "./progress.ts";
 * import { memoryIo } from "./io.ts";
 * import { LogicalClock } from "../core/clock.ts";
 * const io = memoryIo();
 * const progress = progressDisplay(io.out, false, new LogicalClock());
 * import { runConfig } from "../eval/setup/run_identity.ts";
 * const config = {
 *   suite_digest: "d", tasks: ["a"], repeat: 2, agent: "nop", model: null, settings: null, seed: 0,
 *   harness_version: "0.1.0", attempt: 1, concurrency: 1, paths: ["tasks/a"],
 *   task_dirs: { a: "tasks/a" }, categories: { a: "bugfix" },
 * };
 * const run = { id: "abc", config, createdAt: 0, status: "running" as const };
 * progress.runStarted(run, runConfig(run), 2, []);
 * assert(io.stdout().startsWith("run abc"));
 * ```
 */
export function progressDisplay(
  write: Io["out"],
  terminal: boolean,
  clock: Clock,
): Progress & { done(): void } {
  let started = 0;
  let passed = 0;
  let failed = 0;
  let total = 0;
  const running: string[] = [];
  const clockText = (ms: number) => {
    const seconds = Math.floor(ms / 1000);
    return `${String(Math.floor(seconds / 60)).padStart(2, "0")}:${
      String(seconds % 60).padStart(2, "0")
    }`;
  };
  const status = (done: number) => {
    const spent = clock.monotonic() - started;
    const left = done === 0 || done >= total
      ? ""
      : ` · ${clockText(spent / done * (total - done))} left`;
    const names = running.length === 0
      ? ""
      : ` · running ${running.slice(0, 3).join(", ")}${
        running.length > 3 ? ` +${running.length - 3}` : ""
      }`;
    return `[${done}/${total}] ${passed} passed, ${failed} failed · ${
      clockText(spent)
    }${left}${names}`;
  };
  let done = 0;
  return {
    runStarted(run: RunRecord, config: RunConfig, trials: number, cleanedUp: string[]) {
      started = clock.monotonic();
      total = trials;
      const tasks = config.tasks.length;
      write(
        `run ${run.id}: ${trials} trial${trials === 1 ? "" : "s"} (${
          config.shard ? `shard ${config.shard.index}/${config.shard.count} of ` : ""
        }${tasks} task${tasks === 1 ? "" : "s"} × ${config.repeat}), agent ${config.agent}` +
          (config.model ? `, model ${config.model}` : "") + `, seed ${config.seed}\n`,
      );
      if (cleanedUp.length > 0) {
        write(`removed containers left by killed runs: ${cleanedUp.join(", ")}\n`);
      }
      if (terminal) write(status(0));
    },
    trialStarted(task: string, repeat: number) {
      running.push(`${task}#${repeat}`);
      if (terminal) write(`\r\x1b[K${status(done)}`);
    },
    trialFinished(trial: TrialRecord, finished: number) {
      done = finished;
      const name = `${trial.task}#${trial.repeat}`;
      if (running.includes(name)) running.splice(running.indexOf(name), 1);
      if (trial.verdict === "pass") passed++;
      else failed++;
      const outcome = trial.verdict === "pass"
        ? "pass"
        : `fail (${trial.bucket}: ${trial.reason.split("\n")[0]})`;
      const line = `[${done}/${total}] ${name} ${outcome} ${
        (trial.duration_ms / 1000).toFixed(1)
      }s`;
      if (!terminal) write(`${line}\n`);
      // On a terminal, a failure is printed above the status line as it happens.
      else write(`\r\x1b[K${trial.verdict === "pass" ? "" : `${line}\n`}${status(done)}`);
    },
    done() {
      if (terminal && total > 0) write("\n");
    },
  };
}
