/**
 * Positive evidence of a pass, without Docker: the memory sandbox's success script writes (or
 * does not write) the runners' report, and `grade` decides. `evidence_docker_test.ts` and
 * `python_forms_test.ts` run the real runners' hooks.
 */
import assert from "node:assert/strict";
import { evidenceProblem, parseReport } from "../../src/grading/_evidence.ts";
import { grade } from "../../src/grading/grade.ts";
import { ZERO_COUNTERS } from "../../src/store/run_counters.ts";
import { MemorySandbox } from "../../src/engine/memory_sandbox.ts";
import { AGENT_USER } from "../../src/engine/sandbox.ts";
import { sealEntries, storeSnapshot } from "../../src/workspace/snapshot.ts";
import { openStore } from "../../src/store/store.ts";
import { loadTask } from "../../src/task/load_task.ts";

const bytes = (text: string) => new TextEncoder().encode(text);

Deno.test("a report sums every run's verdict-tests line and ignores everything else", () => {
  assert.equal(parseReport(""), undefined);
  assert.equal(parseReport("3 passed\nverdict-tests\n"), undefined, "a line with no counts");
  assert.deepEqual(
    parseReport(
      "noise\nverdict-tests passed=3 failed=0 errors=0 skipped=1 runner=pytest\n" +
        "  verdict-tests passed=2 failed=1 runner=sh  \nverdict-tests passed=x\n",
    ),
    { ran: 7, passed: 5, failed: 1, errors: 1, skipped: 1 },
    "a count that is not a number is an error",
  );
});

Deno.test("a pass needs a report of passed tests, none failed, and expect_tests when set", () => {
  const counts = (passed: number, failed = 0, errors = 0, skipped = 0) => ({
    ran: passed + failed + errors,
    passed,
    failed,
    errors,
    skipped,
  });
  assert.equal(evidenceProblem(counts(1), undefined, "test.sh"), undefined);
  assert.equal(evidenceProblem(counts(6), 6, "test.sh"), undefined);
  assert.equal(evidenceProblem(undefined, 0, "test.sh"), undefined, "0 opts out");
  assert.match(
    evidenceProblem(undefined, undefined, "test.sh")!,
    /^no evidence shows the tests ran: tests\/test\.sh exited 0, but no test runner reported a result/,
  );
  assert.equal(
    evidenceProblem(counts(0, 0, 0, 4), undefined, "test.sh"),
    "no evidence shows the tests ran: the test runners reported 0 passed (4 skipped), at least 1 is needed",
    "skipped tests are not passes",
  );
  assert.equal(
    evidenceProblem(counts(5), 6, "test.sh"),
    "no evidence shows the tests ran: the test runners reported 5 passed, success.expect_tests is 6",
  );
  for (const expect of [undefined, 3]) {
    assert.equal(
      evidenceProblem(counts(3, 0, 1), expect, "test.sh"),
      "no evidence shows the tests ran without failing: the test runners reported 0 failed and " +
        "1 errors, although tests/test.sh exited 0",
      "a reported failure fails whatever expect_tests says",
    );
  }
});

/** Grades the trivial task (with `expect_tests`) whose success script exits 0 and writes `report`. */
async function gradeReported(expect: number | undefined, report?: string) {
  const loaded = await loadTask("tests/fixtures/bench/trivial");
  const { expect_tests: _, ...success } = loaded.manifest.success;
  const task = {
    ...loaded,
    manifest: {
      ...loaded.manifest,
      success: expect === undefined ? success : { ...success, expect_tests: expect },
    },
  };
  const store = openStore(":memory:");
  const final = sealEntries([{
    path: "answer.txt",
    type: "file",
    mode: 0o644,
    data: bytes("yes\n"),
  }]);
  storeSnapshot(store.blobs, final);
  const sandbox = new MemorySandbox({
    images: {
      "verdict/busybox": [
        { path: "verdict/evidence", type: "dir", mode: 0o755 },
        { path: "verdict/evidence/tests", type: "file", mode: 0o644, data: new Uint8Array() },
      ],
    },
    exec: ({ container, options }) => {
      assert.equal(options.env?.VERDICT_TESTS_REPORT, "/verdict/evidence/tests");
      if (report !== undefined) container.files.write("/verdict/evidence/tests", report);
      return { exitCode: 0 };
    },
  });
  const grader = await sandbox.start({
    image: "verdict/busybox",
    workdir: "/workspace",
    network: "none",
    labels: {},
    user: AGENT_USER,
  });
  try {
    const graded = await grade({
      task,
      blobs: store.blobs,
      initial: sealEntries([]),
      final,
      counters: ZERO_COUNTERS,
      tests: [{ path: "test.sh", type: "file", mode: 0o755, data: bytes("exit 0\n") }],
      grader,
    });
    const copied = sandbox.operations.some((op) => op.op === "copyOut");
    return { graded, copied };
  } finally {
    store.close();
  }
}

Deno.test("exit 0 without a report fails; with one it passes and the grade keeps the counts", async () => {
  const silent = await gradeReported(undefined);
  assert.deepEqual([silent.graded.verdict, silent.graded.bucket], ["fail", "agent_failure"]);
  assert.match(silent.graded.reason, /^no evidence shows the tests ran: /);
  assert.equal(silent.graded.success?.tests, undefined);

  const reported = await gradeReported(2, "verdict-tests passed=2 failed=0 runner=sh\n");
  assert.equal(reported.graded.verdict, "pass", reported.graded.reason);
  assert.equal(reported.graded.reason, "tests passed (2 passed)");
  assert.deepEqual(reported.graded.success?.tests, {
    ran: 2,
    passed: 2,
    failed: 0,
    errors: 0,
    skipped: 0,
  });

  const short = await gradeReported(3, "verdict-tests passed=2 failed=0 runner=sh\n");
  assert.equal(short.graded.verdict, "fail");
});

Deno.test("expect_tests: 0 opts out, reads no report, and says so in the reason", async () => {
  const { graded, copied } = await gradeReported(0, "verdict-tests passed=0 failed=5\n");
  assert.equal(graded.verdict, "pass", graded.reason);
  assert.equal(
    graded.reason,
    "tests passed (success.expect_tests is 0: no report of the tests was required)",
  );
  assert.equal(copied, false, "the report is not read");
});
