/**
 * The task folder `verdict tasks new` writes: a small, complete task that `verdict tasks check`
 * accepts as is (the oracle passes; the nop agent and the untouched workspace fail), every file
 * commented with what to change. It shows the practice that keeps a task from being gamed: hidden
 * tests with cases the instruction does not show, built-in checks over the sealed end state, and a
 * canary that runs the test's own machinery on a case no honest solution passes.
 *
 * It runs on `verdict/busybox` (BusyBox `sh` only), the smallest image the bundled tasks use.
 *
 * @module
 */
import type { TreeEntry } from "./file_tree.ts";
import { MANIFEST_SCHEMA } from "./manifest.ts";

/**
 * Why `name` cannot be a task id (lowercase letters, digits and dashes), or undefined when it can.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { taskIdProblem } from "./task_scaffold.ts";
 * assert.equal(taskIdProblem("hello-world"), undefined);
 * assert.match(taskIdProblem("Hello World") ?? "", /lowercase letters, digits and dashes/);
 * ```
 */
export function taskIdProblem(name: string): string | undefined {
  const parsed = MANIFEST_SCHEMA.shape.id.safeParse(name);
  return parsed.success ? undefined : parsed.error.issues[0].message;
}

/**
 * The scaffold's files for task `id`, in the order they are written: `task.yaml`,
 * `instruction.md`, `workspace/`, `tests/` and `solution/`. Scripts are executable (0755).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseManifest } from "./load_task.ts";
 * import { taskScaffold } from "./task_scaffold.ts";
 * const entries = taskScaffold("hello");
 * const yaml = entries.find((entry) => entry.path === "task.yaml");
 * assert(yaml?.type === "file");
 * const manifest = parseManifest(new TextDecoder().decode(yaml.data), "task.yaml");
 * assert.equal(manifest.id, "hello");
 * assert.equal(manifest.success.canary, "canary.sh");
 * ```
 */
export function taskScaffold(id: string): TreeEntry[] {
  const problem = taskIdProblem(id);
  if (problem !== undefined) throw new RangeError(`task id '${id}' ${problem}`);
  return [
    file("task.yaml", taskYaml(id)),
    file("instruction.md", INSTRUCTION),
    file("workspace/README.md", WORKSPACE_README),
    file("workspace/greet.sh", WORKSPACE_GREET, 0o755),
    file("tests/test.sh", TEST_SH, 0o755),
    file("tests/canary.sh", CANARY_SH, 0o755),
    file("tests/lib.sh", LIB_SH),
    file("solution/files/greet.sh", SOLUTION_GREET, 0o755),
  ];
}

function file(path: string, text: string, mode = 0o644): TreeEntry {
  return { path, type: "file", mode, data: new TextEncoder().encode(text) };
}

function taskYaml(id: string): string {
  return `# The manifest of task ${id}. Unknown keys are an error; every key you may set is here.
# Make the task yours (instruction.md, workspace/, tests/, solution/; each file says what to
# change), then run \`verdict tasks check\` on this folder: the oracle (solution/) must pass, and
# the nop agent and the untouched workspace must fail.
id: ${id}${
    " ".repeat(Math.max(1, 28 - id.length))
  }# unique in the suite: lowercase letters, digits, dashes
category: shell                 # free text: statistics and reports group tasks by it
image: verdict/busybox          # a local Docker image with what the task needs (verdict/python:3.11, ...)
workdir: /workspace             # where workspace/ is copied; the agent and the tests start here
network: none                   # none, or bridge when the task itself needs the network
# What one trial may spend; past a limit the agent is stopped and graded as it stands.
limits: { max_steps: 30, timeout_s: 600, max_total_tokens: 200000, max_cost_usd: 0.50 }
# The model's context window as the agent loop keeps it (strategy: truncate | summarize).
context: { max_tokens: 16000, reserve_output_tokens: 2000, strategy: truncate }
policy: default                 # or a policy file in this folder, such as policy.yaml
# docs: [docs/guide.md]         # optional: the only pages (in this folder) read_docs may serve
# tests/test.sh decides (exit 0 = pass); tests/canary.sh must FAIL, or the trial fails as
# tampering. Both run in fresh containers of the image, with this folder's tests/ at
# /verdict/tests, the agent's sealed workspace as the current folder, and no network. A pass also
# needs the test runner's report of at least expect_tests passed tests: pytest, unittest and
# doctest report by themselves; this shell test prints a verdict-tests line (tests/lib.sh).
success: { script: test.sh, canary: canary.sh, timeout_s: 60, expect_tests: 6 }
# Built-in checks over the sealed end state; all must hold. Change the paths to your task's.
checks:
  - paths_exist: [greet.sh]                 # the artifact must be there
  - files_unchanged: [README.md]            # what the agent must not edit (say, visible tests)
  - changed_paths_within: [greet.sh]        # globs: the only paths the agent may add or change
# Optional: what the run itself must have done, such as { min_tool_calls: 1, finished: true }
# (min_steps, max_steps, min_tool_calls, min_compactions, min_denied_calls, max_denied_calls,
# max_total_tokens, max_cost_usd, finished, resumed). The oracle cannot meet the model-only ones.
# requires: { max_denied_calls: 0 }
`;
}

const INSTRUCTION = `# Greet by name

<!-- What the agent is told, and all it is told: tests/ and solution/ are never in its container.
Replace this with your task. Say what must be true when it is done, precisely enough that a
careful engineer could not misread it, without giving away the hidden tests' cases. -->

\`greet.sh\` at the top of this repository always greets the world. Fix it so that

\`\`\`sh
sh greet.sh NAME
\`\`\`

prints \`Hello, NAME!\` with NAME exactly as given, and \`sh greet.sh\` with no argument prints
\`Hello, world!\`. It must run with BusyBox \`sh\` only. Change nothing else.
`;

const WORKSPACE_README = `# greet

<!-- workspace/ is copied into the container's workdir before the agent starts: the starting
state of the repository the agent works on. Replace these files with your task's. -->

\`greet.sh\` greets people for the front desk's kiosk. It runs on BusyBox.
`;

const WORKSPACE_GREET = `#!/bin/sh
# greet.sh [NAME]: greets NAME.
# (The starting state, with the bug the agent must fix. Replace it with your task's files.)
echo "Hello, world!"
`;

const TEST_SH = `#!/bin/sh
# The success script: exit 0 = pass. It runs in a fresh container of the task's image with the
# agent's sealed workspace as the current folder, this folder at /verdict/tests (the agent never
# saw it), as the agent's user, with no network.
# Change it to test your task: test what the instruction asks, with cases it does not show (an
# agent that fits only the examples must fail). Print why each case fails: it is in the report.
set -u
. "$(dirname "$0")/lib.sh"

[ -f greet.sh ] || { echo "FAIL: greet.sh is missing"; exit 1; }

expect "no argument" "Hello, world!"
expect "a name" "Hello, Ada!" Ada
expect "spaces kept as given" "Hello, Ada  Lovelace!" "Ada  Lovelace"
expect "a glob character" "Hello, *!" "*"
expect "a leading dash" "Hello, -n!" -n
expect "a backslash" 'Hello, a\\tb!' 'a\\tb'
finish
`;

const CANARY_SH = `#!/bin/sh
# The canary: it must FAIL. It runs the test's own machinery (lib.sh) on a case no honest
# greet.sh passes. If it passes, the answers came from the test rather than from the input (a
# greet.sh that reads /verdict/tests, say), and the trial fails as tampering.
# Change it with the test: same machinery, a case whose expected answer is wrong.
set -u
. "$(dirname "$0")/lib.sh"

expect "a name it was not given" "Hello, canary!" Ada
finish
`;

const LIB_SH =
  `# Shared by test.sh and canary.sh, so the canary exercises exactly what the test trusts.
# Change it to your task's checks.
failures=0
passed=0

# expect LABEL EXPECTED [ARG...]: \`sh ./greet.sh ARG...\` exits 0 and prints exactly EXPECTED.
expect() {
  label=$1
  expected=$2
  shift 2
  actual=$(sh ./greet.sh "$@" 2>&1)
  status=$?
  if [ "$status" -ne 0 ]; then
    echo "FAIL: $label: exit status $status, output: $actual"
    failures=$((failures + 1))
  elif [ "$actual" != "$expected" ]; then
    echo "FAIL: $label: expected '$expected', got '$actual'"
    failures=$((failures + 1))
  else
    echo "ok: $label"
    passed=$((passed + 1))
  fi
}

# finish: report the counts to Verdict (the success.expect_tests of task.yaml; run by hand, the
# line is printed), then exit 1 when a case failed.
finish() {
  echo "verdict-tests passed=$passed failed=$failures runner=sh" >>"\${VERDICT_TESTS_REPORT:-/dev/stdout}"
  if [ "$failures" -ne 0 ]; then
    echo "$failures case(s) failed"
    exit 1
  fi
  echo "all cases passed"
}
`;

const SOLUTION_GREET = `#!/bin/sh
# greet.sh [NAME]: prints "Hello, NAME!", or "Hello, world!" without a NAME.
# (The reference solution: the oracle agent copies solution/files/ over the workspace, then runs
# solution/solve.sh in the workdir if there is one. Replace it with your task's solution.)
printf 'Hello, %s!\\n' "\${1:-world}"
`;
