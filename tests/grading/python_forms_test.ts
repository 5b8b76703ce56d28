/**
 * Tasks written the way their authors test locally, graded through the real `tasks check` and
 * `eval` paths on Docker (`tests/fixtures/python_forms/`): each ordinary form of a Python test
 * script passes under the oracle and fails under nop, and a script that exits 0 having run no
 * test, or after its tests failed, does not pass.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { Results } from "../../src/report/results.ts";
import { requireDocker } from "../_docker.ts";
import { runVerdict, scratchDir } from "../_verdict.ts";

const FORMS = "tests/fixtures/python_forms/ok";
const NO_EVIDENCE = "tests/fixtures/python_forms/no_evidence";

Deno.test("tasks check: every ordinary Python form passes under the oracle and fails under nop", async () => {
  await requireDocker();
  await using home = await scratchDir("python-forms");
  const result = await runVerdict([
    "tasks",
    "check",
    FORMS,
    "--concurrency",
    "2",
    "--home",
    home.path,
  ]);
  assert.equal(result.code, 0, `${result.stdout}\n${result.stderr}`);
  assert.match(result.stdout, /\b6 of 6 tasks check out\b/, result.stdout);
  // The oracle's run: each form's runner reported what ran, and the count is the real one.
  const runs = [...result.stdout.matchAll(/\(runs ([\w-]+)(?:, ([\w-]+))?\)/g)].flatMap((m) =>
    m.slice(1).filter(Boolean)
  );
  const reasons = new Map<string, string>();
  for (const run of runs) {
    const results = JSON.parse(
      await Deno.readTextFile(join(home.path, "runs", run, "results.json")),
    ) as Results;
    for (const trial of results.trials) {
      if (trial.verdict === "pass") reasons.set(trial.task, trial.reason);
    }
  }
  assert.deepEqual(Object.fromEntries(reasons), {
    "pytest-conftest": "tests passed (3 passed)",
    "python-c-import": "tests passed (2 passed)",
    "python-m-doctest": "tests passed (4 passed)",
    "python-m-pytest": "tests passed (3 passed)",
    "python-m-unittest": "tests passed (3 passed)",
    "subprocess-tool": "tests passed (2 passed)",
  });
});

/** What the runners reported, as `ran/passed/failed/errors/skipped`. */
function counts(
  tests?: Record<"ran" | "passed" | "failed" | "errors" | "skipped", number>,
): string {
  if (!tests) return "none";
  return [tests.ran, tests.passed, tests.failed, tests.errors, tests.skipped].join("/");
}

/**
 * Runs the oracle and nop on the no-evidence fixtures, in one sweep; by agent, each task's
 * "verdict: reason" and its runners' counts.
 */
async function evalOutcomes(): Promise<Map<string, Map<string, string>>> {
  await using home = await scratchDir("no-evidence");
  const result = await runVerdict([
    "eval",
    "--agent",
    "oracle",
    "--agent",
    "nop",
    NO_EVIDENCE,
    "--concurrency",
    "2",
    "--home",
    home.path,
    "--json",
  ]);
  assert.equal(result.code, 0, result.stderr);
  const { runs } = JSON.parse(result.stdout) as { runs: Results[] };
  return new Map(runs.map((results) => [
    String(results.run.agent),
    new Map(results.trials.map((trial) => [
      trial.task,
      `${trial.verdict}: ${trial.reason} ${counts(trial.success?.tests)}`,
    ])),
  ]));
}

Deno.test("a success script that exits 0 having run no test, or after its tests failed, does not pass", async () => {
  await requireDocker();
  const noRunner =
    /^fail: no evidence shows the tests ran: tests\/test\.sh exited 0, but no test runner reported a result .* none$/;
  const nonePassed =
    /^fail: no evidence shows the tests ran: the test runners reported 0 passed, at least 1 is needed 0\/0\/0\/0\/0$/;
  const byAgent = await evalOutcomes();
  assert.deepEqual([...byAgent.keys()].sort(), ["nop", "oracle"]);
  for (const [agent, outcomes] of byAgent) {
    assert.match(
      outcomes.get("exit-zero") ?? "",
      noRunner,
      `${agent}: ${outcomes.get("exit-zero")}`,
    );
    assert.match(
      outcomes.get("pytest-nomatch") ?? "",
      nonePassed,
      `${agent}: ${outcomes.get("pytest-nomatch")}`,
    );
    assert.equal(
      outcomes.get("pytest-or-true"),
      agent === "oracle"
        ? "pass: tests passed (3 passed) 3/3/0/0/0"
        : "fail: no evidence shows the tests ran without failing: the test runners reported " +
          "2 failed and 0 errors, although tests/test.sh exited 0 " +
          "3/1/2/0/0",
    );
  }
});
