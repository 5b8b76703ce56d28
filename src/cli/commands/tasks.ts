/**
 * `verdict tasks list`, `verdict tasks check`, `verdict tasks new` and `verdict tasks export`.
 *
 * @module
 */
import { basename, dirname, join } from "node:path";
import { ExitCode, UsageError } from "../../core/errors.ts";
import { systemClock } from "../../core/system_clock.ts";
import { CONTROLS } from "../../agent/control_agents.ts";
import { checkTasks, type TasksCheckOutcome } from "../../eval/run/tasks_check.ts";
import { GRADER_ENV, TESTS_PATH } from "../../grading/grade.ts";
import { type HarborExport, readHarborExport } from "../../task/export_harbor.ts";
import { loadSuite, selectTasks } from "../../task/load_suite.ts";
import { taskIdProblem, taskScaffold } from "../../task/task_scaffold.ts";
import { writeTree } from "../../task/write_tree.ts";
import { statOrNull } from "../_stat_or_null.ts";
import {
  type Command,
  DEFAULT_TASK_PATHS,
  HOME_OPTION,
  JSON_OPTION,
  taskPaths,
} from "../command.ts";
import { count, MAX_CONCURRENCY } from "../option_values.ts";
import { checkProgressDisplay } from "../_check_progress.ts";
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
    "validate every manifest; per task the oracle must pass, nop, the untouched workspace and every control must fail",
  args: "[PATH...]",
  options: {
    task: { type: "string", multiple: true, valueName: "ID", description: "only this task" },
    concurrency: {
      type: "string",
      valueName: "N",
      description: "trials at once, shared by the runs (default 4)",
    },
    ...JSON_OPTION,
    ...HOME_OPTION,
  },
  positionals: { min: 0, max: Infinity },
  takesTaskPaths: true,
  details:
    "Runs per task an oracle trial, a nop trial and a trial per control (a generic cheat:\n" +
    CONTROLS.map((control) => control.name).join(", ") + "), each agent's trials a run\n" +
    "recorded in the state directory, the runs at the same time sharing --concurrency.\n" +
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
        progress: checkProgressDisplay(write, io.isTerminal && !json, systemClock),
      }));
    if (outcome.interrupted) {
      write("interrupted\n");
      return interruptedExitCode(outcome.interruption);
    }
    const bad = outcome.tasks.filter((task) => task.problems.length > 0);
    if (json) io.out(JSON.stringify(outcome, null, 2) + "\n");
    else write(checkReport(outcome));
    return bad.length === 0 ? ExitCode.yes : ExitCode.no;
  },
};

// The check's tables (agents; controls), the footnotes, the problems and the summary line.
function checkReport(outcome: TasksCheckOutcome): string {
  const bad = outcome.tasks.filter((task) => task.problems.length > 0);
  const agents = table(
    ["task", "oracle", "nop", "untouched", "result"],
    outcome.tasks.map((task) => [
      task.task,
      (task.oracle?.verdict ?? "-") + (task.modelOnly.length > 0 ? "*" : ""),
      task.nop?.verdict ?? "-",
      task.nop?.success ? (task.nop.success.exit_code === 0 ? "pass" : "fail") : "-",
      task.problems.length === 0 ? "ok" : "PROBLEM",
    ]),
  );
  const names = CONTROLS.map((control) => control.name);
  const controls = table(
    ["controls (must fail)", ...names],
    outcome.tasks.map((task) => [
      task.task,
      ...names.map((name) =>
        task.controls.find((ran) => ran.control === name)?.trial.verdict.toUpperCase() ?? "-"
      ),
    ]),
  );
  const runs = Object.entries(outcome.controlRuns);
  return "\n" + agents + "\n" + controls +
    outcome.tasks.filter((task) => task.modelOnly.length > 0).map((task) =>
      `* ${task.task}: ${task.modelOnly.join(", ")} can only be met by a model-driven run\n`
    ).join("") +
    bad.map((task) => `${task.task}: ${task.problems.join("; ")}\n`).join("") +
    (runs.length > 0
      ? `controls: ${runs.map(([name, run]) => `${name} run ${run}`).join(", ")}\n`
      : "") +
    `${outcome.tasks.length - bad.length} of ${outcome.tasks.length} tasks check out (runs ${
      outcome.runs.join(", ")
    })\n`;
}

/**
 * The `tasks new` command: writes the {@linkcode taskScaffold} into `DIR/NAME`, never over
 * anything that exists.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { tasksNewCommand } from "./tasks.ts";
 * import { memoryIo } from "../io.ts";
 * const run = tasksNewCommand.run({ io: memoryIo(), values: {}, positionals: ["My Task"] });
 * await assert.rejects(run, /not a task id.*Fix: verdict tasks new my-task/);
 * ```
 */
export const tasksNewCommand: Command = {
  name: "tasks new",
  summary: "scaffold a task that `tasks check` accepts as is",
  args: "NAME",
  options: {
    dir: {
      type: "string",
      valueName: "DIR",
      description: "the folder of task folders it goes in (default tasks, which eval and tasks " +
        "check read; created if missing)",
      path: "write-folder",
    },
  },
  positionals: { min: 1, max: 1 },
  details: "Writes DIR/NAME/, a small task on the verdict/busybox image: task.yaml (every key,\n" +
    "commented), instruction.md, workspace/, tests/ (test.sh, the canary canary.sh, lib.sh)\n" +
    "and solution/. Every file says what to change. The oracle passes it, and the nop agent and\n" +
    "the untouched workspace fail it, so `verdict tasks check DIR/NAME` exits 0 as it stands.\n" +
    "NAME is the task id (lowercase letters, digits and dashes). An existing DIR/NAME is never\n" +
    "overwritten (exit 2).",
  async run({ io, values, positionals }) {
    const name = positionals[0];
    const problem = taskIdProblem(name);
    if (problem !== undefined) {
      throw new UsageError(`'${name}' is not a task id: it ${problem}. Fix: ${fixedName(name)}`);
    }
    requireFolderName(name, "NAME");
    const dir = typeof values.dir === "string" ? values.dir : DEFAULT_TASK_PATHS[0];
    if (dir === "") throw new UsageError("--dir is empty: give a folder, such as --dir tasks");
    if (statOrNull(dir)?.isDirectory === false) {
      throw new UsageError(
        `--dir ${dir} is a file, not a folder. Fix: give the folder the task goes in`,
      );
    }
    const folder = join(dir, name);
    await Deno.mkdir(dir, { recursive: true });
    try {
      await Deno.mkdir(folder);
    } catch (error) {
      if (!(error instanceof Deno.errors.AlreadyExists)) throw error;
      throw new UsageError(
        `${folder} already exists, and tasks new never writes over anything. Fix: choose ` +
          `another NAME or --dir, or move ${folder} away first`,
      );
    }
    await writeTree(folder, taskScaffold(name));
    io.out(
      `created ${folder}: task.yaml, instruction.md, workspace/, tests/ (test.sh, canary.sh, ` +
        `lib.sh), solution/\n` +
        `Each file says what to change. Check the task, as it stands and after each change:\n` +
        `  verdict tasks check ${folder}\n`,
    );
    return ExitCode.yes;
  },
};

// How to say a name that is not a task id: as a path, its last part with --dir; otherwise in
// lowercase with dashes.
function fixedName(name: string): string {
  const slug = name.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "");
  if (name.includes("/") && basename(name) !== "" && taskIdProblem(basename(name)) === undefined) {
    return `give the folder with --dir: verdict tasks new ${basename(name)} --dir ${dirname(name)}`;
  }
  return slug === ""
    ? "use lowercase letters, digits and dashes, such as verdict tasks new hello"
    : `verdict tasks new ${slug}`;
}

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
      path: "write-folder",
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
    if (statOrNull(out)?.isDirectory === false) {
      throw new UsageError(
        `--out ${out} is a file, not a folder: the tasks are written into a folder, one task ` +
          `folder each. Fix: give a folder (new or existing), not a file${
            values.force === true ? " (--force replaces task folders, never a file)" : ""
          }`,
      );
    }
    const suite = await loadSuite(taskPaths(positionals));
    const tasks = selectTasks(suite, (values.task as string[] | undefined) ?? []);
    for (const task of tasks) requireFolderName(task.id, `the id of ${task.dir}`);
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

// The longest name a folder may have on the file systems Verdict runs on (NAME_MAX), in bytes.
const NAME_MAX = 255;

function requireFolderName(name: string, what: string): void {
  const bytes = new TextEncoder().encode(name).length;
  if (bytes <= NAME_MAX) return;
  throw new UsageError(
    `${what}, '${name.slice(0, 40)}…', is ${bytes} bytes long, and it names a folder, which ` +
      `holds at most ${NAME_MAX}. Fix: choose a task id of at most ${NAME_MAX} characters`,
  );
}
