/**
 * Grading without Docker: the memory sandbox stands in for the graders, so what `grade` asks of
 * them (a fresh grader per script, the workspace unpacked in the script's exec or copied in first,
 * the environment) is checked in milliseconds. `grade_test.ts` checks the same on Docker.
 */
import assert from "node:assert/strict";
import { InfrastructureError } from "../../src/core/errors.ts";
import { stageTask } from "../../src/eval/trial/staged_task.ts";
import { grade, VERDICT_GRADER_ENV } from "../../src/grading/grade.ts";
import { ZERO_COUNTERS } from "../../src/store/run_counters.ts";
import { type ExecHandler, MemorySandbox } from "../../src/engine/memory_sandbox.ts";
import { AGENT_USER } from "../../src/engine/sandbox.ts";
import { sealEntries, type Snapshot, storeSnapshot } from "../../src/workspace/snapshot.ts";
import type { TarEntry } from "../../src/engine/tar.ts";
import { openStore } from "../../src/store/store.ts";
import type { TreeEntry } from "../../src/task/file_tree.ts";
import { loadTask } from "../../src/task/load_task.ts";

const bytes = (text: string) => new TextEncoder().encode(text);

const TESTS: TreeEntry[] = [
  { path: "test.sh", type: "file", mode: 0o755, data: bytes("grep -qx yes answer.txt\n") },
  { path: "canary.sh", type: "file", mode: 0o755, data: bytes("exit 1\n") },
];

// The scripts as the graders would run them: the success script greps the staged answer.
const scripts: ExecHandler = ({ script, workdir, options, container: { files } }) => {
  assert.deepEqual(options.env, VERDICT_GRADER_ENV);
  if (script === "'/verdict/tests/test.sh'") {
    return { exitCode: files.text(`${workdir}/answer.txt`) === "yes\n" ? 0 : 1, stdout: "ran\n" };
  }
  if (script === "'/verdict/tests/canary.sh'") return { exitCode: 1 };
  throw new Error(`unexpected command ${script}`);
};

async function gradeWith(
  end: TarEntry[],
  exec: ExecHandler,
  canary?: string,
  sealing: (final: Snapshot, sandbox: MemorySandbox) => Promise<Snapshot> | Snapshot = (final) =>
    final,
) {
  const loaded = await loadTask("tests/fixtures/bench/trivial");
  const success = { ...loaded.manifest.success, ...(canary ? { canary } : {}) };
  const task = { ...loaded, manifest: { ...loaded.manifest, success } };
  const staged = await stageTask(task);
  const store = openStore(":memory:");
  const final = sealEntries(end);
  storeSnapshot(store.blobs, final);
  const sandbox = new MemorySandbox({ exec });
  const start = () =>
    sandbox.start({
      image: "verdict/busybox",
      workdir: "/workspace",
      network: "none",
      labels: { "verdict.role": "grader" },
      user: AGENT_USER,
    });
  const grader = await start();
  const canaryGrader = canary ? await start() : undefined;
  try {
    const graded = await grade({
      task,
      blobs: store.blobs,
      initial: staged.initial,
      final: sealing(final, sandbox),
      counters: ZERO_COUNTERS,
      tests: TESTS,
      grader,
      canaryGrader,
    });
    return { graded, sandbox, grader, canaryGrader };
  } finally {
    store.close();
  }
}

Deno.test("a plain end state is unpacked in the script's own exec, and the script decides", async () => {
  const answer: TarEntry = { path: "answer.txt", type: "file", mode: 0o644, data: bytes("yes\n") };
  const { graded, sandbox, grader } = await gradeWith([answer], scripts);
  assert.equal(graded.verdict, "pass", graded.reason);
  assert.equal(graded.success?.output, "ran\n");
  assert.deepEqual(
    sandbox.operations.filter((op) => "id" in op && op.id === grader.id).map(({ op }) => op),
    ["exec"],
    "one exec, no copy",
  );
  const wrong = await gradeWith([{ ...answer, data: bytes("no\n") }], scripts);
  assert.equal(wrong.graded.verdict, "fail");
  assert.equal(wrong.graded.reason, "tests failed (tests/test.sh exited 1)");
});

Deno.test("an end state with a set-id file is copied in by the engine before the script runs", async () => {
  let copied: string | undefined;
  const { graded, sandbox, grader } = await gradeWith([
    { path: "answer.txt", type: "file", mode: 0o644, data: bytes("yes\n") },
    { path: "setid", type: "file", mode: 0o4755, data: bytes("#!/bin/sh\n") },
  ], (request) => {
    copied = request.container.files.get("/workspace/setid")?.type;
    return scripts(request);
  });
  assert.equal(graded.verdict, "pass", graded.reason);
  assert.equal(copied, "file", "the script ran before the copy");
  // The exec begins first (its start is off the trial's path); its script waits for the copy.
  const ops = sandbox.operations.filter((op) => "id" in op && op.id === grader.id);
  assert.deepEqual(ops.map(({ op }) => op), ["exec", "copyIn"]);
});

Deno.test("the graders' execs begin while the end state is sealed; their scripts run once it is", async () => {
  const answer: TarEntry = { path: "answer.txt", type: "file", mode: 0o644, data: bytes("yes\n") };
  const ran: string[] = [];
  let atSeal: { execs: number; ran: number } | undefined;
  const { graded } = await gradeWith(
    [answer],
    (request) => {
      ran.push(request.script);
      return scripts(request);
    },
    "canary.sh",
    async (final, sandbox) => {
      await new Promise((resolve) => setTimeout(resolve, 20)); // the seal takes its time
      atSeal = {
        execs: sandbox.operations.filter((op) => op.op === "exec").length,
        ran: ran.length,
      };
      return final;
    },
  );
  assert.equal(graded.verdict, "pass", graded.reason);
  assert.deepEqual(
    atSeal,
    { execs: 2, ran: 0 },
    "both execs begun, no script run, before the seal",
  );
  assert.deepEqual(ran.sort(), ["'/verdict/tests/canary.sh'", "'/verdict/tests/test.sh'"]);
});

Deno.test("a seal that fails runs no grading script, and grading fails with the seal's reason", async () => {
  const answer: TarEntry = { path: "answer.txt", type: "file", mode: 0o644, data: bytes("yes\n") };
  const ran: string[] = [];
  const unsealable = new Error("the end state is past the task's limits");
  await assert.rejects(
    () =>
      gradeWith(
        [answer],
        (request) => {
          ran.push(request.script);
          return scripts(request);
        },
        "canary.sh",
        () => Promise.reject(unsealable),
      ),
    (error) => error === unsealable,
  );
  assert.deepEqual(ran, []);
});

Deno.test("the canary runs in a grader of its own", async () => {
  const answer: TarEntry = { path: "answer.txt", type: "file", mode: 0o644, data: bytes("yes\n") };
  const { graded, sandbox, grader, canaryGrader } = await gradeWith([answer], scripts, "canary.sh");
  assert.equal(graded.verdict, "pass", graded.reason);
  assert.equal(graded.canary?.exitCode, 1);
  const ran = (id: string) =>
    sandbox.operations.flatMap((op) => op.op === "exec" && op.id === id ? [op.script] : []);
  assert.deepEqual(ran(grader.id), ["'/verdict/tests/test.sh'"]);
  assert.deepEqual(ran(canaryGrader!.id), ["'/verdict/tests/canary.sh'"]);
});

Deno.test("a workspace the grader could not unpack is an infrastructure error, never a verdict", async () => {
  const answer: TarEntry = { path: "answer.txt", type: "file", mode: 0o644, data: bytes("yes\n") };
  await assert.rejects(
    () => gradeWith([answer], () => ({ unpacked: false, exitCode: 2, stderr: "tar: denied\n" })),
    (error: Error) =>
      error instanceof InfrastructureError &&
      error.message ===
        "could not stage the sealed workspace in the grading container: tar: denied",
  );
});

Deno.test("an installed agent's trial is not failed by what only Verdict's loop counts", async () => {
  const loaded = await loadTask("tests/fixtures/bench/trivial");
  const requires = { min_denied_calls: 1, min_compactions: 1, min_tool_calls: 1 };
  const task = { ...loaded, manifest: { ...loaded.manifest, requires } };
  const staged = await stageTask(task);
  const store = openStore(":memory:");
  const final = sealEntries([
    { path: "answer.txt", type: "file", mode: 0o644, data: bytes("yes\n") },
  ]);
  storeSnapshot(store.blobs, final);
  const sandbox = new MemorySandbox({ exec: scripts });
  const gradeOnce = async (counters: typeof ZERO_COUNTERS, waiveLoopOnly?: boolean) =>
    await grade({
      task,
      blobs: store.blobs,
      initial: staged.initial,
      final,
      counters,
      tests: TESTS,
      grader: await sandbox.start({
        image: "verdict/busybox",
        workdir: "/workspace",
        network: "none",
        labels: {},
        user: AGENT_USER,
      }),
      waiveLoopOnly,
    });
  try {
    const counters = { ...ZERO_COUNTERS, toolCalls: 3 };
    const waived = await gradeOnce(counters, true);
    assert.equal(waived.verdict, "pass", waived.reason);
    assert.deepEqual(
      waived.requirements.map((result) => [result.key, result.passed, result.loopOnly]),
      [
        ["min_tool_calls", true, false],
        ["min_compactions", false, true],
        ["min_denied_calls", false, true],
      ],
    );
    for (const key of ["min_compactions", "min_denied_calls"]) {
      const result = waived.requirements.find((each) => each.key === key)!;
      assert.match(
        result.detail,
        new RegExp(`^${key} 1: got 0 \\(not applicable: `),
        result.detail,
      );
    }
    const loop = await gradeOnce(counters);
    assert.equal(loop.verdict, "fail");
    assert.equal(loop.reason, "requirement not met: min_compactions 1: got 0");
    assert(loop.requirements.every((result) => !result.detail.includes("not applicable")));
    // The waiver covers only the loop's own counters: too few tool calls still fail.
    const idle = await gradeOnce(ZERO_COUNTERS, true);
    assert.equal(idle.verdict, "fail");
    assert.equal(idle.reason, "requirement not met: min_tool_calls 1: got 0");
  } finally {
    store.close();
  }
});
