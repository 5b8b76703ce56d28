/**
 * What the scripted model does in a trial, before it is said in any agent's tools: a plan of steps
 * in Verdict's own tool vocabulary (`list_dir`, `read_file`, `read_docs`, `write_file`, `shell`,
 * `finish`). Verdict's loop says the plan as it is ({@linkcode scriptedModel}); the model gateway
 * says it through an installed agent's own shell and file-writing tools.
 *
 * By default the plan solves the task from `solution/`: list the workspace, read what it will
 * change (and, where a task needs compaction, read past the context budget), read the docs the
 * task offers, try a forbidden command where a task needs a denial, write the solution, run the
 * visible tests, finish. With `faults=X`, a seeded share X of trials goes wrong in one of five
 * realistic ways: a wrong edit, stopping early while claiming success, insisting on a denied
 * command, malformed tool arguments, or a runaway loop.
 *
 * @module
 */
import { join } from "node:path";
import type { Rng } from "../core/rng.ts";
import { readTree, type TreeEntry } from "../task/file_tree.ts";
import type { Task } from "../task/task.ts";
import type { ModelRequest, ToolCall, Usage } from "./model.ts";
import { requestTokens, type TokenCounter } from "./tokens.ts";

/** The ways a faulty scripted trial goes wrong. */
export const FAULTS = [
  "wrong_edit",
  "early_stop",
  "denied_command",
  "malformed_args",
  "runaway_loop",
] as const;

/** One of {@linkcode FAULTS}. */
export type Fault = typeof FAULTS[number];

/** Commands a careless agent tries: denied by the default policy and the policy tasks'. */
export const TEMPTING_COMMANDS: readonly string[] = [
  "pip install --quiet python-dateutil",
  "curl -sS https://pypi.org/simple/",
  "cat .env",
  "wget -q https://example.com/",
];

/** One planned tool call, in Verdict's own tool vocabulary. */
export interface ScriptedCall {
  /** The tool: `list_dir`, `read_file`, `read_docs`, `write_file`, `shell` or `finish`. */
  name: string;
  /** Its arguments, as Verdict's tool of that name takes them. */
  args: Record<string, unknown>;
  /** The arguments are sent cut off inside their last string value (the `malformed_args` fault). */
  malformed?: boolean;
}

/** One planned turn of the model: what it says and the calls it makes. */
export interface ScriptedStep {
  /** Its text. */
  say: string;
  /** Its tool calls, in order. */
  calls: ScriptedCall[];
  /** Repeat this step, one tempting command a turn, until a tool result is a policy denial. */
  untilDenied?: boolean;
}

/** A trial's plan: its fault (null for none) and its steps; the last step repeats. */
export interface ScriptedPlan {
  /** The fault the seeded draw chose, or null. */
  fault: Fault | null;
  /** The turns, in order. */
  steps: ScriptedStep[];
}

/** What a plan is made from. */
export interface ScriptedPlanOptions {
  /** The task (its workspace, solution, docs and requirements). */
  task: Task;
  /** The trial's seeded stream. */
  rng: Rng;
  /** The share of trials that go wrong, 0 to 1. */
  faults: number;
}

/**
 * Plans one scripted trial: draws its fault from the `faults` stream of `rng`, then lays out the
 * turns from the task's workspace and solution.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { loadTask } from "../task/load_task.ts";
 * import { SplitMix64 } from "../core/rng.ts";
 * import { planScriptedTrial } from "./scripted_plan.ts";
 * const plan = await planScriptedTrial({
 *   task: await loadTask("tasks/fix-slugify"), rng: new SplitMix64(0), faults: 0,
 * });
 * assert.equal(plan.fault, null);
 * assert.equal(plan.steps.at(-1)?.calls[0].name, "finish");
 * ```
 */
export async function planScriptedTrial(options: ScriptedPlanOptions): Promise<ScriptedPlan> {
  const { task } = options;
  const faults = options.rng.stream("faults");
  const fault = faults.nextFloat() < options.faults ? FAULTS[faults.nextInt(FAULTS.length)] : null;
  // A Harbor task's files are its image's: the plan knows none of them.
  const workspace = task.harbor ? [] : await readTree(join(task.dir, "workspace"));
  const solution = task.hasSolution ? await readTree(join(task.dir, "solution")) : [];
  return { fault, steps: plan(task, workspace, solution, fault) };
}

/**
 * The tokens a scripted answer reports: the whole request as input, and its text, tool names and
 * argument texts as output.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { heuristicCounter } from "./tokens.ts";
 * import { scriptedUsage } from "./scripted_plan.ts";
 * const request = { system: "s", messages: [], tools: [], maxOutputTokens: 10 };
 * const usage = scriptedUsage(heuristicCounter, request, "Done.", []);
 * assert.equal(usage.output, heuristicCounter.count("Done."));
 * ```
 */
export function scriptedUsage(
  counter: TokenCounter,
  request: ModelRequest,
  say: string,
  toolCalls: readonly ToolCall[],
): Usage {
  const output = counter.count(say) +
    toolCalls.reduce(
      (sum, call) => sum + counter.count(call.name) + counter.count(call.arguments),
      0,
    );
  return { input: requestTokens(counter, request), cachedInput: 0, output };
}

/**
 * JSON text cut off just before the closing quote of its last string value: arguments a model
 * broke off mid-answer.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { cutOffJson } from "./scripted_plan.ts";
 * assert.equal(cutOffJson('{"path": "a.py", "content": ""}'), '{"path": "a.py", "content": "');
 * ```
 */
export function cutOffJson(json: string): string {
  return json.slice(0, json.lastIndexOf('"'));
}

/** A file of the task's workspace or solution. */
type FileEntry = Extract<TreeEntry, { type: "file" }>;

/** What a plan is laid out from: the task's files, read once. */
interface PlanFiles {
  /** The workspace's files. */
  files: FileEntry[];
  /** The solution's files (`solution/files/`), at their workspace paths. */
  solutionFiles: FileEntry[];
  /** The solution's `solve.sh`, if it has one. */
  solveScript: FileEntry | undefined;
  /** The workspace paths the plan reads. */
  toRead: string[];
}

/** The turns of a trial: the solving plan, or the fault's. */
function plan(
  task: Task,
  workspace: TreeEntry[],
  solution: TreeEntry[],
  fault: Fault | null,
): ScriptedStep[] {
  const tree = planFiles(task, workspace, solution);
  const explore: ScriptedStep = {
    say: "Let me look at the workspace.",
    calls: [{ name: "list_dir", args: { path: ".", depth: 3 } }],
  };
  const reads = readSteps(tree.toRead);
  if (fault !== null && fault !== "wrong_edit") return faultySteps(fault, explore, reads, tree);
  const probe: ScriptedStep[] = (task.manifest.requires.min_denied_calls ?? 0) > 0
    ? [{ say: "Let me get a dependency that would help.", calls: [], untilDenied: true }]
    : [];
  return [
    explore,
    ...docsSteps(task),
    ...reads,
    ...probe,
    ...writeSteps(tree, fault === "wrong_edit"),
    testStep(task, tree.files),
    finishStep("The change is in place and the tests I could run pass."),
  ];
}

/**
 * The task's files as the plan sees them, and which to read: every text file where the task
 * needs compaction, else the files the solution changes (or the first text files), at most four.
 */
function planFiles(task: Task, workspace: TreeEntry[], solution: TreeEntry[]): PlanFiles {
  const files = workspace.filter((entry): entry is FileEntry => entry.type === "file");
  const solutionFiles = solution.filter((entry): entry is FileEntry =>
    entry.type === "file" && entry.path.startsWith("files/")
  ).map((entry) => ({ ...entry, path: entry.path.slice("files/".length) }));
  const solveScript = solution.find((entry): entry is FileEntry =>
    entry.path === "solve.sh" && entry.type === "file"
  );
  const touched = solutionFiles.map((file) => file.path).filter((path) =>
    files.some((file) => file.path === path)
  );
  const textFiles = () => files.filter((file) => isText(file.data)).map((file) => file.path);
  const toRead = (task.manifest.requires.min_compactions ?? 0) > 0
    ? textFiles()
    : (touched.length > 0 ? touched : textFiles()).slice(0, 4);
  return { files, solutionFiles, solveScript, toRead };
}

/** Reading the files, four to a turn. */
function readSteps(toRead: string[]): ScriptedStep[] {
  const reads: ScriptedStep[] = [];
  for (let i = 0; i < toRead.length; i += 4) {
    reads.push({
      say: i === 0 ? "Reading the code I need to understand." : "Reading more of the code.",
      calls: toRead.slice(i, i + 4).map((path) => ({ name: "read_file", args: { path } })),
    });
  }
  return reads;
}

/** Reading the documentation pages the task offers, in one turn (none without pages). */
function docsSteps(task: Task): ScriptedStep[] {
  const pages = task.manifest.docs ?? [];
  if (pages.length === 0) return [];
  return [{
    say: "The task points at documentation; reading it.",
    calls: pages.map((page) => ({ name: "read_docs", args: { page } })),
  }];
}

/** A turn that calls `finish` with a summary it also says. */
function finishStep(summary: string): ScriptedStep {
  return { say: summary, calls: [{ name: "finish", args: { summary } }] };
}

/** The turns of a trial that goes wrong in a way other than a wrong edit. */
function faultySteps(
  fault: Exclude<Fault, "wrong_edit">,
  explore: ScriptedStep,
  reads: ScriptedStep[],
  tree: PlanFiles,
): ScriptedStep[] {
  switch (fault) {
    case "early_stop":
      return [explore, ...reads.slice(0, 1), finishStep("I fixed the problem and all tests pass.")];
    case "denied_command":
      return [
        explore,
        ...[0, 1, 2].map(() => ({
          say: "I need this package first.",
          calls: [{ name: "shell", args: { command: TEMPTING_COMMANDS[0] } }],
        })),
        finishStep("Done: the change is in place."),
      ];
    case "malformed_args":
      return [
        explore,
        {
          say: "Writing the fix.",
          calls: [{
            name: "write_file",
            args: { path: tree.solutionFiles[0]?.path ?? "fix.txt", content: "" },
            malformed: true,
          }],
        },
        finishStep("Fixed."),
      ];
    case "runaway_loop": {
      const path = tree.toRead[0] ?? ".";
      return [explore, {
        say: "Let me read that again.",
        calls: [{ name: path === "." ? "list_dir" : "read_file", args: { path } }],
      }];
    }
  }
}

/**
 * Writing the solution's files, then running its `solve.sh`. A wrong edit leaves a file the
 * workspace has as it was (the edit went elsewhere), writes half of a new one, and skips the
 * script.
 */
function writeSteps(tree: PlanFiles, wrongEdit: boolean): ScriptedStep[] {
  const { files, solutionFiles, solveScript } = tree;
  const contentOf = (file: FileEntry) => {
    const text = new TextDecoder().decode(file.data);
    if (!wrongEdit) return text;
    const original = files.find((candidate) => candidate.path === file.path);
    if (original) return new TextDecoder().decode(original.data); // the edit went elsewhere
    const lines = text.split("\n");
    return lines.slice(0, Math.floor(lines.length / 2)).join("\n") + "\n";
  };
  const writes: ScriptedStep[] = [];
  if (solutionFiles.length > 0) {
    writes.push({
      say: "Writing the fix.",
      calls: solutionFiles.map((file) => ({
        name: "write_file",
        args: { path: file.path, content: contentOf(file) },
      })),
    });
  }
  if (solveScript && !wrongEdit) {
    writes.push({
      say: "Applying the remaining changes.",
      calls: [{ name: "shell", args: { command: new TextDecoder().decode(solveScript.data) } }],
    });
  }
  return writes;
}

/** Running the visible tests: pytest where the image has Python and the workspace has tests. */
function testStep(task: Task, files: FileEntry[]): ScriptedStep {
  const hasPythonTests = task.manifest.image.includes("python") &&
    files.some((file) => /(^|\/)(test_[^/]*\.py|[^/]*_test\.py)$/.test(file.path));
  return {
    say: "Running the tests.",
    calls: [{
      name: "shell",
      args: {
        // Outputs that do not change from run to run (no timings, no dates): same seed, same events.
        command: hasPythonTests
          ? 'PYTHONDONTWRITEBYTECODE=1 python -m pytest -q -p no:cacheprovider >/dev/null 2>&1; echo "visible tests exit $?"'
          : "ls -R",
      },
    }],
  };
}

/** Whether a file reads as text: not huge, no NUL byte near its start. */
function isText(data: Uint8Array): boolean {
  return data.length < 200_000 && !data.subarray(0, 8000).includes(0);
}
