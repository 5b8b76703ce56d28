/**
 * The control agents of `verdict tasks check`: agents that cheat generically, with no model and
 * no knowledge of the task. A task whose tests any of them passes can be passed without doing
 * the work. Each plants files in the trial's container, as the agent user in a Verdict task's
 * workdir (respecting what the task's checks pin, `_control_plants.ts`), as root across a Harbor
 * task's container (`_control_harbor.ts`), and records what it did in an `agent.cmd` event
 * naming it.
 *
 * @module
 */
import { join } from "node:path";
import { EVENT, event } from "../store/event_catalogue.ts";
import { ZERO_COUNTERS } from "../store/run_counters.ts";
import { packTar } from "../engine/tar.ts";
import { readTree, type TreeEntry } from "../task/file_tree.ts";
import type { Task } from "../task/task.ts";
import type { Agent, AgentOutcome } from "./agent.ts";
import {
  allowedPlants,
  exitAtImportPlants,
  graderHijackPlants,
  type Plant,
  skipAllPlants,
} from "./_control_plants.ts";
import { harborExitAtImport, harborGraderHijack, harborSkipAll } from "./_control_harbor.ts";

/**
 * The prefix of a control agent's name (`control:skip-all`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { CONTROL_PREFIX } from "./control_agents.ts";
 * assert.equal(CONTROL_PREFIX, "control:");
 * ```
 */
export const CONTROL_PREFIX = "control:";

/** A generic cheat. */
export interface Control {
  /** Its name; the agent is `control:NAME`. */
  name: "exit-at-import" | "skip-all" | "grader-hijack";
  /** What it does, completing "the success script passes when ...". */
  cheat: string;
  /** How a task author makes the tests see through it. */
  fix: string;
  /** The same for a Harbor task. */
  harborFix: string;
  /** The files it writes over a Verdict task's workspace (empty: it has nothing to cheat with). */
  plants(workspace: readonly TreeEntry[]): Plant[];
  /** The shell script it runs in a Harbor task's container, as root in the `WORKDIR`. */
  harbor(): string;
}

const EVIDENCE = "or set success.expect_tests so that grading requires evidence the tests ran";

// What a Harbor task's author can do: its verifier is the task's own script.
const HARBOR_EVIDENCE = "have tests/test.sh write the reward from what the test runner reports " +
  "(pytest's --junitxml: tests ran, none failed or was skipped), not from its exit status";

/**
 * Every control, in the order `tasks check` reports them.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { CONTROLS } from "./control_agents.ts";
 * assert.deepEqual(CONTROLS.map((c) => c.name), ["exit-at-import", "skip-all", "grader-hijack"]);
 * ```
 */
export const CONTROLS: readonly Control[] = [
  {
    name: "exit-at-import",
    cheat: "every workspace module exits 0 at import (`import os; os._exit(0)` at the top of " +
      "each *.py, `exit 0` at the top of each shell script)",
    fix: "make the tests assert on behaviour the imports must produce, and add a canary " +
      `(success.canary) that imports the same modules and must fail, ${EVIDENCE}`,
    harborFix: `${HARBOR_EVIDENCE}, and assert on behaviour the imports must produce`,
    plants: exitAtImportPlants,
    harbor: harborExitAtImport,
  },
  {
    name: "skip-all",
    cheat: "a conftest.py and a pytest.ini in the workspace (and, for a Harbor task, at /) skip " +
      "every test, only collect, and set pytest's exit status to 0",
    fix: "run pytest on the held-out tests so that no workspace configuration applies " +
      "(`python3 -I -m pytest /verdict/tests/test_x.py` from the workdir, the tests left where " +
      `they are staged), ${EVIDENCE}`,
    harborFix: `${HARBOR_EVIDENCE}, and run pytest with \`-c /tests/pytest.ini\` (a ` +
      "configuration of the task's own) so that no configuration outside /tests applies",
    plants: skipAllPlants,
    harbor: harborSkipAll,
  },
  {
    name: "grader-hijack",
    cheat: "interpreter start-up hooks and shadows planted in the workspace (sitecustomize.py, " +
      "usercustomize.py, a .pth, pytest/, unittest/, json.py; for a Harbor task also in " +
      "site-packages and /etc/ld.so.preload) make every interpreter exit 0",
    fix: "keep the workspace off sys.path until the standard library and the test runner are " +
      `loaded (\`python3 -I\`, a conftest that appends it), ${EVIDENCE}`,
    harborFix: `${HARBOR_EVIDENCE}; Verdict's Harbor grading is to flag these paths as ` +
      "tampering (issue 26 item 5): until it does, no task can stop this control",
    plants: () => graderHijackPlants(),
    harbor: harborGraderHijack,
  },
];

/**
 * A control's agent name.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { CONTROLS, controlName } from "./control_agents.ts";
 * assert.equal(controlName(CONTROLS[0]), "control:exit-at-import");
 * ```
 */
export function controlName(control: Control): string {
  return `${CONTROL_PREFIX}${control.name}`;
}

/**
 * What a control plants in a Verdict task's workspace, less what the task's checks forbid; for a
 * Harbor task, undefined (its script decides in the container).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { CONTROLS, controlPlants } from "./control_agents.ts";
 * import { loadSuite } from "../task/load_suite.ts";
 * const [task] = (await loadSuite(["tasks/fix-slugify"])).tasks;
 * const plants = await controlPlants(CONTROLS[0], task);
 * assert(plants!.some((plant) => plant.path === "textkit/slug.py"));
 * ```
 */
export async function controlPlants(control: Control, task: Task): Promise<Plant[] | undefined> {
  if (task.harbor) return undefined;
  const workspace = await readTree(join(task.dir, "workspace"));
  return allowedPlants(control.plants(workspace), task.manifest.checks);
}

/**
 * Whether a control has anything to cheat with on a task: a Harbor task always; a Verdict task
 * when its checks leave it something to plant and, for the controls aimed at Python's machinery,
 * when Python grades it (a `*.py` in `workspace/` or `tests/`, or a file of `tests/` that runs
 * `python`, `python3` or `pytest`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { CONTROLS, controlApplies } from "./control_agents.ts";
 * import { loadSuite } from "../task/load_suite.ts";
 * const [task] = (await loadSuite(["tasks/shell-rotate-logs"])).tasks;
 * assert(await controlApplies(CONTROLS[0], task)); // rotate.sh
 * assert(!(await controlApplies(CONTROLS[1], task))); // no Python grades it
 * ```
 */
export async function controlApplies(control: Control, task: Task): Promise<boolean> {
  const plants = await controlPlants(control, task);
  if (plants === undefined) return true;
  if (plants.length === 0) return false;
  return control.name === "exit-at-import" || await gradedByPython(task);
}

async function gradedByPython(task: Task): Promise<boolean> {
  const [workspace, tests] = await Promise.all(
    ["workspace", "tests"].map((part) => readTree(join(task.dir, part))),
  );
  const decoder = new TextDecoder();
  const module = (entry: TreeEntry) => entry.type === "file" && entry.path.endsWith(".py");
  return workspace.some(module) || tests.some((entry) =>
    module(entry) ||
    (entry.type === "file" && /\b(python3?|pytest)\b/.test(decoder.decode(entry.data)))
  );
}

/**
 * The agent that plays a control.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { CONTROLS, controlAgent } from "./control_agents.ts";
 * assert.equal(controlAgent(CONTROLS[1]).name, "control:skip-all");
 * ```
 */
export function controlAgent(control: Control): Agent {
  return {
    name: controlName(control),
    async run(context): Promise<AgentOutcome> {
      const plants = await controlPlants(control, context.task);
      const result = await context.container.exec(
        plants === undefined ? control.harbor() : "tar -x -f - -C .",
        {
          timeoutMs: context.timeoutMs,
          signal: context.signal,
          ...(plants === undefined ? {} : { stdin: packTar(plants) }),
        },
      );
      if (result.aborted) throw context.signal.reason;
      context.record([event(EVENT.agentCmd, {
        command: controlName(control),
        exit_code: result.exitCode,
        timed_out: result.timedOut,
        stdout: result.stdout,
        stderr: result.stderr,
      })]);
      const stopReason = result.timedOut
        ? "timeout"
        : result.exitCode === 0
        ? "completed"
        : "error";
      return {
        stopReason,
        counters: { ...ZERO_COUNTERS, finished: stopReason === "completed" },
        tokens: { input: 0, output: 0 },
        detail: result.exitCode === 0 ? undefined : `the control exited ${result.exitCode}`,
      };
    },
  };
}
