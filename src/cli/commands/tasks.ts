/**
 * `verdict tasks list` and `verdict tasks check`.
 *
 * @module
 */
import { ExitCode } from "../../core/errors.ts";
import { systemClock } from "../../core/system_clock.ts";
import { checkTasks } from "../../eval/tasks_check.ts";
import { loadSuite, selectTasks } from "../../task/load_suite.ts";
import { type Command, HOME_OPTION, JSON_OPTION, taskPaths } from "../command.ts";
import { count, MAX_CONCURRENCY } from "../option_values.ts";
import { progressDisplay } from "../progress.ts";
import { interruptedExitCode, sandboxFromEnv, withInterrupt } from "../runtime.ts";
import { resolveHome } from "../state.ts";
import { table } from "../table.ts";

/** The `tasks list` command. */
export const tasksListCommand: Command = {
  name: "tasks list",
  summary: "list tasks with category and image",
  args: "[PATH...]",
  options: { ...JSON_OPTION },
  positionals: { min: 0, max: Infinity },
  takesTaskPaths: true,
  async run({ io, values, positionals }) {
    const suite = await loadSuite(taskPaths(positionals));
    const rows = suite.tasks.map((task) => ({
      id: task.id,
      category: task.manifest.category,
      image: task.manifest.image,
      path: task.dir,
    }));
    if (values.json) io.out(JSON.stringify({ digest: suite.digest, tasks: rows }, null, 2) + "\n");
    else {
      io.out(
        table(["task", "category", "image"], rows.map((row) => [row.id, row.category, row.image])),
      );
      io.out(`${rows.length} tasks, suite digest ${suite.digest.slice(0, 16)}\n`);
    }
    return ExitCode.yes;
  },
};

/** The `tasks check` command. */
export const tasksCheckCommand: Command = {
  name: "tasks check",
  summary:
    "validate every manifest; per task the oracle must pass, nop and the untouched workspace must fail",
  args: "[PATH...]",
  options: {
    task: { type: "string", multiple: true, valueName: "ID", description: "only this task" },
    concurrency: { type: "string", valueName: "N", description: "trials at once (default 4)" },
    ...JSON_OPTION,
    ...HOME_OPTION,
  },
  positionals: { min: 0, max: Infinity },
  takesTaskPaths: true,
  details: "Runs an oracle trial and a nop trial per task, recorded in the state directory.\n" +
    "Exits 0 when every task checks out, 1 when one does not, 2 for a bad manifest.",
  async run({ io, values, positionals }) {
    const json = values.json === true;
    const write = json ? io.err : io.out;
    const concurrency = count(values, "concurrency", 4, 1, MAX_CONCURRENCY);
    const paths = taskPaths(positionals);
    const suite = await loadSuite(paths);
    const tasks = selectTasks(suite, (values.task as string[] | undefined) ?? []);
    const outcome = await withInterrupt(io, (signal) =>
      checkTasks({
        paths,
        suite,
        tasks,
        concurrency,
        seed: 0,
        home: resolveHome(values, io),
      }, {
        sandbox: sandboxFromEnv(io),
        clock: systemClock,
        signal,
        progress: progressDisplay(write, io.isTerminal && !json, systemClock),
      }));
    if (outcome.interrupted) {
      write("interrupted\n");
      return interruptedExitCode(outcome.interruption);
    }
    const bad = outcome.tasks.filter((task) => task.problems.length > 0);
    if (json) io.out(JSON.stringify(outcome, null, 2) + "\n");
    else {
      write(
        "\n" + table(
          ["task", "oracle", "nop", "untouched", "result"],
          outcome.tasks.map((task) => [
            task.task,
            (task.oracle?.verdict ?? "-") + (task.modelOnly.length > 0 ? "*" : ""),
            task.nop?.verdict ?? "-",
            task.nop?.success ? (task.nop.success.exit_code === 0 ? "pass" : "fail") : "-",
            task.problems.length === 0 ? "ok" : "PROBLEM",
          ]),
        ),
      );
      for (const task of outcome.tasks.filter((task) => task.modelOnly.length > 0)) {
        write(
          `* ${task.task}: ${task.modelOnly.join(", ")} can only be met by a model-driven run\n`,
        );
      }
      for (const task of bad) write(`${task.task}: ${task.problems.join("; ")}\n`);
      write(
        `${outcome.tasks.length - bad.length} of ${outcome.tasks.length} tasks check out (runs ${
          outcome.runs.join(", ")
        })\n`,
      );
    }
    return bad.length === 0 ? ExitCode.yes : ExitCode.no;
  },
};
