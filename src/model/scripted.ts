/**
 * The scripted model: deterministic for a given task, seed and repeat, and needing nothing.
 * By default it solves the task from `solution/` through the same tool calls a real model would
 * make: list the workspace, read what it will change (and, where a task needs compaction, read
 * past the context budget), read the docs the task offers, try a forbidden command where a task
 * needs a denial, write the solution, run the visible tests, finish.
 *
 * With `faults=X`, a seeded share X of trials goes wrong in one of five realistic ways: a wrong
 * edit, stopping early while claiming success, insisting on a denied command, malformed tool
 * arguments, or a runaway loop.
 *
 * @module
 */
import { join } from "node:path";
import type { Rng } from "../core/rng.ts";
import { readTree, type TreeEntry } from "../task/file_tree.ts";
import type { Task } from "../task/task.ts";
import type { Message, Model, ModelRequest, ModelResponse, ToolCall } from "./model.ts";
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

/** What the scripted model is made from. */
export interface ScriptedModelOptions {
  /** The task (its workspace, solution, docs and requirements). */
  task: Task;
  /** The trial's seeded stream. */
  rng: Rng;
  /** The share of trials that go wrong, 0 to 1. */
  faults: number;
  /** Counts the tokens it reports as used. */
  counter: TokenCounter;
}

/** Commands a careless agent tries: denied by the default policy and the policy tasks'. */
const TEMPTING_COMMANDS = [
  "pip install --quiet python-dateutil",
  "curl -sS https://pypi.org/simple/",
  "cat .env",
  "wget -q https://example.com/",
];

interface PlannedCall {
  name: string;
  args: Record<string, unknown> | string;
}

interface Step {
  say: string;
  calls: PlannedCall[];
  /** Repeat this step until a tool result is a policy denial (for probing). */
  untilDenied?: boolean;
}

/**
 * Makes the scripted model for one trial.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { loadTask } from "../task/load_task.ts";
 * import { SplitMix64 } from "../core/rng.ts";
 * import { heuristicCounter } from "./tokens.ts";
 * import { scriptedModel } from "./scripted.ts";
 * const model = await scriptedModel({
 *   task: await loadTask("tasks/fix-slugify"), rng: new SplitMix64(0), faults: 0, counter: heuristicCounter,
 * });
 * assert(model.spec === "scripted");
 * ```
 */
export async function scriptedModel(
  options: ScriptedModelOptions,
): Promise<Model & { fault: Fault | null }> {
  const { task, counter } = options;
  const faults = options.rng.stream("faults");
  const fault = faults.nextFloat() < options.faults ? FAULTS[faults.nextInt(FAULTS.length)] : null;
  const workspace = await readTree(join(task.dir, "workspace"));
  const solution = task.hasSolution ? await readTree(join(task.dir, "solution")) : [];
  const steps = plan(task, workspace, solution, fault);
  let next = 0;
  let probes = 0;
  let callNumber = 0;
  return {
    spec: options.faults > 0 ? `scripted:faults=${options.faults}` : "scripted",
    remote: false,
    fault,
    complete(request: ModelRequest): Promise<ModelResponse> {
      // Steps run in order; the last one repeats (a runaway loop is a plan that ends in a read).
      let step: Step;
      for (;;) {
        const current = steps[Math.min(next, steps.length - 1)];
        if (!current.untilDenied) {
          step = current;
          next++;
          break;
        }
        if (
          (probes > 0 && lastResultDenied(request.messages)) || probes >= TEMPTING_COMMANDS.length
        ) {
          next++;
          continue;
        }
        step = {
          say: current.say,
          calls: [{ name: "shell", args: { command: TEMPTING_COMMANDS[probes++] } }],
        };
        break;
      }
      const toolCalls: ToolCall[] = step.calls.map((call) => ({
        id: `call_${++callNumber}`,
        name: call.name,
        arguments: typeof call.args === "string" ? call.args : JSON.stringify(call.args),
      }));
      const output = counter.count(step.say) +
        toolCalls.reduce(
          (sum, call) => sum + counter.count(call.name) + counter.count(call.arguments),
          0,
        );
      return Promise.resolve({
        content: step.say,
        toolCalls,
        finish: toolCalls.length > 0 ? "tool_calls" : "stop",
        usage: { input: requestTokens(counter, request), cachedInput: 0, output },
      });
    },
  };
}

function lastResultDenied(messages: readonly Message[]): boolean {
  const last = messages.at(-1);
  return last?.role === "tool" && last.isError && last.content.startsWith("denied by policy");
}

function plan(
  task: Task,
  workspace: TreeEntry[],
  solution: TreeEntry[],
  fault: Fault | null,
): Step[] {
  const files = workspace.filter((entry): entry is Extract<TreeEntry, { type: "file" }> =>
    entry.type === "file"
  );
  const solutionFiles = solution.filter((entry): entry is Extract<TreeEntry, { type: "file" }> =>
    entry.type === "file" && entry.path.startsWith("files/")
  ).map((entry) => ({ ...entry, path: entry.path.slice("files/".length) }));
  const solveScript = solution.find((entry) => entry.path === "solve.sh" && entry.type === "file");
  const touched = solutionFiles.map((file) => file.path).filter((path) =>
    files.some((file) => file.path === path)
  );
  const explore: Step = {
    say: "Let me look at the workspace.",
    calls: [{ name: "list_dir", args: { path: ".", depth: 3 } }],
  };
  const requires = task.manifest.requires;

  const reads: Step[] = [];
  const toRead = (requires.min_compactions ?? 0) > 0
    ? files.filter((file) => isText(file.data)).map((file) => file.path)
    : (touched.length > 0
      ? touched
      : files.filter((file) => isText(file.data)).map((file) => file.path)).slice(0, 4);
  for (let i = 0; i < toRead.length; i += 4) {
    reads.push({
      say: i === 0 ? "Reading the code I need to understand." : "Reading more of the code.",
      calls: toRead.slice(i, i + 4).map((path) => ({ name: "read_file", args: { path } })),
    });
  }
  const docs: Step[] = (task.manifest.docs ?? []).length > 0
    ? [{
      say: "The task points at documentation; reading it.",
      calls: task.manifest.docs!.map((page) => ({ name: "read_docs", args: { page } })),
    }]
    : [];
  const finish = (summary: string): Step => ({
    say: summary,
    calls: [{ name: "finish", args: { summary } }],
  });

  switch (fault) {
    case "early_stop":
      return [explore, ...reads.slice(0, 1), finish("I fixed the problem and all tests pass.")];
    case "denied_command":
      return [
        explore,
        ...[0, 1, 2].map(() => ({
          say: "I need this package first.",
          calls: [{ name: "shell", args: { command: TEMPTING_COMMANDS[0] } }],
        })),
        finish("Done: the change is in place."),
      ];
    case "malformed_args":
      return [
        explore,
        {
          say: "Writing the fix.",
          calls: [{
            name: "write_file",
            args: `{"path": ${JSON.stringify(solutionFiles[0]?.path ?? "fix.txt")}, "content": "`,
          }],
        },
        finish("Fixed."),
      ];
    case "runaway_loop": {
      const path = toRead[0] ?? ".";
      return [explore, {
        say: "Let me read that again.",
        calls: [{ name: path === "." ? "list_dir" : "read_file", args: { path } }],
      }];
    }
    default:
      break;
  }

  const probe: Step[] = (requires.min_denied_calls ?? 0) > 0
    ? [{ say: "Let me get a dependency that would help.", calls: [], untilDenied: true }]
    : [];
  const writes: Step[] = [];
  const contentOf = (file: { path: string; data: Uint8Array }) => {
    const text = new TextDecoder().decode(file.data);
    if (fault !== "wrong_edit") return text;
    const original = files.find((candidate) => candidate.path === file.path);
    if (original) return new TextDecoder().decode(original.data); // the edit went elsewhere
    const lines = text.split("\n");
    return lines.slice(0, Math.floor(lines.length / 2)).join("\n") + "\n";
  };
  if (solutionFiles.length > 0) {
    writes.push({
      say: "Writing the fix.",
      calls: solutionFiles.map((file) => ({
        name: "write_file",
        args: { path: file.path, content: contentOf(file) },
      })),
    });
  }
  if (solveScript?.type === "file" && fault !== "wrong_edit") {
    writes.push({
      say: "Applying the remaining changes.",
      calls: [{ name: "shell", args: { command: new TextDecoder().decode(solveScript.data) } }],
    });
  }
  const hasPythonTests = task.manifest.image.includes("python") &&
    files.some((file) => /(^|\/)(test_[^/]*\.py|[^/]*_test\.py)$/.test(file.path));
  const test: Step = {
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
  return [
    explore,
    ...docs,
    ...reads,
    ...probe,
    ...writes,
    test,
    finish("The change is in place and the tests I could run pass."),
  ];
}

function isText(data: Uint8Array): boolean {
  return data.length < 200_000 && !data.subarray(0, 8000).includes(0);
}
