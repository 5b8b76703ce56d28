/**
 * `verdict tasks list`, `verdict tasks check` and `verdict tasks export`.
 *
 * @module
 */
import { join } from "node:path";
import { ExitCode, UsageError } from "../../core/errors.ts";
import { systemClock } from "../../core/system_clock.ts";
import { checkTasks } from "../../eval/tasks_check.ts";
import { GRADER_ENV, TESTS_PATH } from "../../grading/grade.ts";
import { type HarborExport, readHarborExport } from "../../task/export_harbor.ts";
import { loadSuite, selectTasks } from "../../task/load_suite.ts";
import { writeTree } from "../../task/write_tree.ts";
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

/** The formats `tasks export` writes. */
const EXPORT_FORMATS = ["harbor"] as const;

/** The `tasks export` command. */
export const tasksExportCommand: Command = {
  name: "tasks export",
  summary: "write Verdict tasks in another harness's format (Harbor task folders)",
  args: "[PATH...]",
  options: {
    format: {
      type: "string",
      valueName: "FORMAT",
      description: `the format to write (required): ${EXPORT_FORMATS.join(", ")}`,
    },
    out: {
      type: "string",
      valueName: "DIR",
      description: "the folder the tasks are written into, one folder per task id (required)",
    },
    task: { type: "string", multiple: true, valueName: "ID", description: "only this task" },
    force: { type: "boolean", description: "replace task folders that already exist in DIR" },
  },
  positionals: { min: 0, max: Infinity },
  takesTaskPaths: true,
  details:
    "Writes DIR/ID/ per task: task.toml, instruction.md, environment/Dockerfile (the task's\n" +
    "image, its workspace copied into the workdir), tests/test.sh (runs the success script as\n" +
    "Verdict does, from tests/verdict/, and writes /logs/verifier/reward.txt) and\n" +
    "solution/solve.sh (what the oracle does). The output is the same bytes every time.\n" +
    "What Harbor cannot express (checks, requires, canary, policy, docs, network: bridge, limits\n" +
    "other than the deadline) is listed on stderr as 'not exported' and in [metadata].\n" +
    "A task folder that exists and is not empty is refused (exit 2) unless --force.",
  async run({ io, values, positionals }) {
    const format = values.format;
    if (typeof format !== "string" || !(EXPORT_FORMATS as readonly string[]).includes(format)) {
      throw new UsageError(
        `${format === undefined ? "--format is required" : `unknown --format '${format}'`}; ` +
          `write --format ${EXPORT_FORMATS.join(" or ")} (verdict tasks export)`,
      );
    }
    const out = values.out;
    if (typeof out !== "string" || out === "") {
      throw new UsageError(
        "--out DIR is required: the folder the tasks are written into (verdict tasks export)",
      );
    }
    const suite = await loadSuite(taskPaths(positionals));
    const tasks = selectTasks(suite, (values.task as string[] | undefined) ?? []);
    const exports: HarborExport[] = [];
    for (const task of tasks) {
      if (task.harbor) {
        io.err(`${task.id}: skipped: it is a Harbor task already (copy ${task.dir} as is)\n`);
        continue;
      }
      exports.push(await readHarborExport(task, { testsPath: TESTS_PATH, env: GRADER_ENV }));
    }
    const taken: string[] = [];
    for (const exported of exports) {
      const folder = join(out, exported.id);
      if (values.force !== true && !(await isEmptyOrMissing(folder))) taken.push(folder);
    }
    if (taken.length > 0) {
      throw new UsageError(
        `${taken.join(", ")} ${taken.length === 1 ? "exists and is" : "exist and are"} not ` +
          `empty: the export would mix with what is there. Fix: give another --out, remove ` +
          `${taken.length === 1 ? "the folder" : "them"}, or pass --force to replace what is there`,
      );
    }
    for (const exported of exports) {
      const folder = join(out, exported.id);
      await Deno.remove(folder, { recursive: true }).catch((error) => {
        if (!(error instanceof Deno.errors.NotFound)) throw error;
      });
      await writeTree(folder, exported.entries);
      if (exported.notExported.length > 0) {
        io.err(`${exported.id}: not exported: ${exported.notExported.join("; ")}\n`);
      }
      io.out(`${folder}\n`);
    }
    io.out(`${exports.length} tasks exported as ${format} tasks into ${out}\n`);
    return ExitCode.yes;
  },
};

async function isEmptyOrMissing(folder: string): Promise<boolean> {
  try {
    for await (const _entry of Deno.readDir(folder)) return false;
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return true;
    if (error instanceof Deno.errors.NotADirectory) return false;
    throw error;
  }
}
