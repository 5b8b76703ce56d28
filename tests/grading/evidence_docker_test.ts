/**
 * What the grader's Python set-up holds on Docker, with the real runners' hooks: a workspace that
 * shadows the standard library, pytest or its plugins, or exits 0 at import, cannot turn failing
 * tests into a pass; a workspace module that forges the runners' report can (the control: code
 * inside the test process writes anything the report's writer can, docs/guide-ungameable-tasks.md).
 */
import assert from "node:assert/strict";
import { stageTask } from "../../src/eval/trial/staged_task.ts";
import { type Grade, grade } from "../../src/grading/grade.ts";
import { startContainer } from "../../src/engine/container.ts";
import { DerivedImages } from "../../src/engine/derived_image.ts";
import { AGENT_USER } from "../../src/engine/sandbox.ts";
import { sealEntries, storeSnapshot } from "../../src/workspace/snapshot.ts";
import type { TarEntry } from "../../src/engine/tar.ts";
import { ZERO_COUNTERS } from "../../src/store/run_counters.ts";
import { openStore } from "../../src/store/store.ts";
import { loadTask } from "../../src/task/load_task.ts";
import { requireDocker } from "../_docker.ts";

const LABELS = { "verdict.test": "evidence_docker_test" };
const BUGGY = "def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n";
const file = (path: string, text: string): TarEntry => ({
  path,
  type: "file",
  mode: 0o644,
  data: new TextEncoder().encode(text),
});
const EXIT_0 = "import os\nos._exit(0)\n";

/**
 * Grades an end state of the `python -m pytest` form task (3 tests, expect_tests 3), in its own
 * image or in `image`; `derived` is told the grader image made from it.
 */
async function gradeEnd(
  end: TarEntry[],
  image?: string,
  derived: (graderImage: string) => void = () => {},
): Promise<Grade> {
  const docker = await requireDocker();
  const loaded = await loadTask("tests/fixtures/python_forms/ok/python-m-pytest");
  const task = image === undefined
    ? loaded
    : { ...loaded, manifest: { ...loaded.manifest, image } };
  const staged = await stageTask(task);
  const graderImage = await new DerivedImages(docker, LABELS).imageFor(
    task.manifest.image,
    staged.graderTar,
    {
      emptyFolder: "/workspace",
    },
  );
  derived(graderImage);
  const store = openStore(":memory:");
  const final = sealEntries([{ path: "calc", type: "dir", mode: 0o755 }, ...end]);
  storeSnapshot(store.blobs, final);
  const grader = await startContainer(docker, {
    image: graderImage,
    workdir: "/workspace",
    network: "none",
    labels: LABELS,
    user: AGENT_USER,
  });
  try {
    return await grade({
      task,
      blobs: store.blobs,
      initial: staged.initial,
      final,
      counters: ZERO_COUNTERS,
      tests: staged.tests,
      grader,
    });
  } finally {
    await grader.remove();
    store.close();
  }
}

Deno.test("a workspace json.py, pytest/, _pytest/ and a stray conftest.py cannot pass failing tests", async () => {
  const graded = await gradeEnd([
    file("calc/__init__.py", `import json\n\n${BUGGY}`),
    file("json.py", EXIT_0),
    { path: "pytest", type: "dir", mode: 0o755 },
    file("pytest/__init__.py", EXIT_0),
    file("pytest/__main__.py", EXIT_0),
    { path: "_pytest", type: "dir", mode: 0o755 },
    file("_pytest/__init__.py", EXIT_0),
    file("conftest.py", EXIT_0),
    file("sitecustomize.py", EXIT_0),
    file("verdict_pytest.py", EXIT_0),
    file("verdict_evidence.py", EXIT_0),
  ]);
  assert.deepEqual([graded.verdict, graded.reason], [
    "fail",
    "tests failed (tests/test.sh exited 1)",
  ]);
  assert.match(graded.success?.output ?? "", /2 failed, 1 passed/, "the real pytest ran the tests");
});

Deno.test("a workspace sitecustomize.py does not run where the image has no start-up hook of its own", async () => {
  const docker = await requireDocker();
  // The official python images, Alpine's and Fedora's have no sitecustomize; Debian's has one.
  // Names of this process's own: two test runs may share the engine.
  const image = `verdict-test/python-no-sitecustomize:${Deno.pid}`;
  const name = `verdict-test-no-sitecustomize-${Deno.pid}`;
  const made = await docker.run([
    "run",
    "--name",
    name,
    "--label",
    "verdict.test=evidence_docker_test",
    "--network",
    "none",
    "--user",
    "0:0",
    "verdict/python:3.11",
    "rm",
    "-f",
    "/usr/lib/python3.11/sitecustomize.py",
    "/etc/python3.11/sitecustomize.py",
  ]);
  assert.equal(made.code, 0, made.stderr);
  try {
    const committed = await docker.run(["commit", name, image]);
    assert.equal(committed.code, 0, committed.stderr);
  } finally {
    await docker.run(["rm", "-f", name]);
  }
  const derived: string[] = [];
  try {
    const hook = "import sys\nsys.stderr.write('HIJACKED by the workspace\\n')\n";
    const graded = await gradeEnd(
      [
        file("calc/__init__.py", BUGGY),
        file("sitecustomize.py", hook),
        file("usercustomize.py", hook),
      ],
      image,
      (graderImage) => derived.push(graderImage),
    );
    assert.equal(graded.reason, "tests failed (tests/test.sh exited 1)");
    assert.match(graded.success?.output ?? "", /2 failed, 1 passed/);
    assert.doesNotMatch(graded.success?.output ?? "", /HIJACKED/);
  } finally {
    // The grader image derived from this process's image is this process's too.
    await docker.run(["rmi", "-f", ...derived, image]);
  }
});

Deno.test("the workspace is importable: a fixed end state passes with the runner's counts", async () => {
  const graded = await gradeEnd([file("calc/__init__.py", BUGGY.replace("a - b", "a + b"))]);
  assert.equal(graded.verdict, "pass", graded.reason);
  assert.deepEqual(graded.success?.tests, { ran: 3, passed: 3, failed: 0, errors: 0, skipped: 0 });
});

Deno.test("a workspace module that exits 0 at import runs no test, and does not pass", async () => {
  const graded = await gradeEnd([file("calc/__init__.py", EXIT_0)]);
  assert.equal(graded.success?.exitCode, 0, "the cheat made pytest exit 0");
  assert.equal(graded.verdict, "fail");
  assert.match(
    graded.reason,
    /^no evidence shows the tests ran: tests\/test\.sh exited 0, but no test runner reported a result/,
  );
});

Deno.test("control: a workspace module that forges the runners' report passes (what Verdict cannot stop)", async () => {
  const forger = "import os\n" +
    "with open(os.environ['VERDICT_TESTS_REPORT'], 'a') as report:\n" +
    "    report.write('verdict-tests passed=3 failed=0 runner=pytest\\n')\n" +
    "os._exit(0)\n";
  const graded = await gradeEnd([file("calc/__init__.py", forger)]);
  assert.equal(graded.verdict, "pass", graded.reason);
  assert.deepEqual(graded.success?.tests, { ran: 3, passed: 3, failed: 0, errors: 0, skipped: 0 });
});

Deno.test("a report that is removed, linked or swollen past 1 MB is no evidence, and never an infrastructure error", async () => {
  const vandal = "import os\n" +
    "report = os.environ['VERDICT_TESTS_REPORT']\n" +
    "with open(report, 'a') as forged:\n" +
    "    forged.write('verdict-tests passed=3 failed=0\\n')\n" +
    "for attack in (lambda: os.remove(report), lambda: os.symlink('/etc/passwd', report + '2'),\n" +
    "               lambda: os.truncate(report, 1 << 30)):\n" +
    "    try:\n" +
    "        attack()\n" +
    "    except OSError:\n" +
    "        pass\n" +
    "os._exit(0)\n";
  const graded = await gradeEnd([file("calc/__init__.py", vandal)]);
  assert.deepEqual([graded.verdict, graded.bucket], ["fail", "agent_failure"]);
  assert.match(graded.reason, /^no evidence shows the tests ran: /);
});
