/**
 * Tasks written the way their authors test locally, graded through the real `eval` path on
 * Docker (`tests/fixtures/python_forms/`): each ordinary form of a Python test script passes under
 * the oracle and fails under nop, and a script that exits 0 having run no test, or after its tests
 * failed, does not pass. (`tasks check`'s own behaviour is `tasks_check_test.ts`'s.)
 */
import assert from "node:assert/strict";
import type { Results } from "../../src/report/results.ts";
import { requireDocker } from "../_docker.ts";
import { runVerdict, scratchDir } from "../_verdict.ts";

const FORMS = "tests/fixtures/python_forms/ok";
const NO_EVIDENCE = "tests/fixtures/python_forms/no_evidence";

Deno.test("every ordinary Python form passes under the oracle with its runner's real count, and fails under nop", async () => {
  await requireDocker();
  const byAgent = await evalOutcomes(FORMS, "python-forms");
  const oracle = Object.fromEntries(byAgent.get("oracle") ?? []);
  assert.deepEqual(oracle, {
    "pytest-conftest": "pass: tests passed (3 passed) 3/3/0/0/0",
    "python-c-import": "pass: tests passed (2 passed) 2/2/0/0/0",
    "python-m-doctest": "pass: tests passed (4 passed) 4/4/0/0/0",
    "python-m-pytest": "pass: tests passed (3 passed) 3/3/0/0/0",
    "python-m-unittest": "pass: tests passed (3 passed) 3/3/0/0/0",
    "subprocess-tool": "pass: tests passed (2 passed) 2/2/0/0/0",
  });
  const nop = [...byAgent.get("nop") ?? []];
  assert.deepEqual(nop.map(([task]) => task).sort(), Object.keys(oracle).sort());
  for (const [task, outcome] of nop) assert.match(outcome, /^fail: /, task);
});

/** What the runners reported, as `ran/passed/failed/errors/skipped`. */
function counts(
  tests?: Record<"ran" | "passed" | "failed" | "errors" | "skipped", number>,
): string {
  if (!tests) return "none";
  return [tests.ran, tests.passed, tests.failed, tests.errors, tests.skipped].join("/");
}

/**
 * Runs the oracle and nop on the tasks in `folder`, in one sweep; by agent, each task's
 * "verdict: reason" and its runners' counts.
 */
async function evalOutcomes(
  folder: string,
  scratch: string,
): Promise<Map<string, Map<string, string>>> {
  await using home = await scratchDir(scratch);
  const result = await runVerdict([
    "eval",
    "--agent",
    "oracle",
    "--agent",
    "nop",
    folder,
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
  const byAgent = await evalOutcomes(NO_EVIDENCE, "no-evidence");
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
