import assert from "node:assert/strict";
import { gradeHarbor, harborGraderTar } from "../../src/grading/harbor_grade.ts";
import { DockerSandbox } from "../../src/engine/docker_sandbox.ts";
import {
  loadSnapshot,
  sealedTree,
  sealEntries,
  type SnapshotEntry,
  storeSnapshot,
} from "../../src/workspace/snapshot.ts";
import type { TarEntry } from "../../src/engine/tar.ts";
import { openStore } from "../../src/store/store.ts";
import type { Grade } from "../../src/grading/grade.ts";
import type { TreeEntry } from "../../src/task/file_tree.ts";
import { requireDocker } from "../_docker.ts";

const text = (value: string) => new TextEncoder().encode(value);

// The task's verifier: reward 1 when the agent made /root/solved, else 0; always written.
const TEST_SH =
  "if [ -f /root/solved ]; then echo 1; else echo 0; fi > /logs/verifier/reward.txt\n";

// Grades a sealed end state in a real grader: a root container of the image with what a Harbor
// grader's image adds (the task's tests/ at /tests, an empty /logs/verifier).
async function gradeInDocker(
  entries: readonly TarEntry[],
  removed: readonly string[] = [],
  testSh = TEST_SH,
  user = "root",
): Promise<Grade> {
  const tests: TreeEntry[] = [{ path: "test.sh", type: "file", mode: 0o755, data: text(testSh) }];
  const sandbox = new DockerSandbox(await requireDocker());
  const grader = await sandbox.start({
    image: "verdict/python:3.11",
    workdir: "/root",
    network: "none",
    labels: { "verdict.test": "harbor-grade-docker" },
    user: "0:0",
    capabilities: "engine-default",
  });
  const store = openStore(":memory:");
  try {
    await grader.copyIn(harborGraderTar(tests), "/");
    const files = sealEntries(entries);
    const deleted: SnapshotEntry[] = removed.map((path) => ({ path, type: "removed" }));
    const root = storeSnapshot(
      store.blobs,
      sealedTree([...files.entries, ...deleted], files.contents),
    );
    return await gradeHarbor({
      harbor: {
        schemaVersion: "1.0",
        environment: { dockerfile: null, dockerImage: "verdict/python:3.11", buildTimeoutSec: 60 },
        verifier: { timeoutSec: 30, env: {}, user },
        agentTimeoutSec: 60,
        solveScript: false,
        metadata: {},
      },
      workdir: "/root",
      blobs: store.blobs,
      final: loadSnapshot(store.blobs, root),
      tests,
      grader,
      passReward: 1,
    });
  } finally {
    store.close();
    await grader.remove();
  }
}

const SOLVED: TarEntry = { path: "root/solved", type: "file", mode: 0o644, data: text("y\n") };

Deno.test("a real grader stages the sealed end state and reads the reward", async () => {
  const solved = await gradeInDocker([SOLVED]);
  assert.equal(solved.verdict, "pass", solved.reason);
  assert.equal(solved.reward, 1);
  const unsolved = await gradeInDocker([]);
  assert.equal(unsolved.verdict, "fail");
  assert.equal(unsolved.bucket, "agent_failure");
  assert.equal(unsolved.reward, 0);
});

Deno.test("an agent that made /logs a symlink or a file fails its own trial, not the infrastructure", async () => {
  // The agent's container has no /logs (a grader's image adds it): `ln -s /root/fake /logs`
  // there is sealed as an added symlink, `echo x > /logs` as an added file.
  const planted: TarEntry[] = [
    { path: "root/fake", type: "dir", mode: 0o755 },
    { path: "root/fake/verifier", type: "dir", mode: 0o777 },
    { path: "root/fake/verifier/reward.txt", type: "file", mode: 0o644, data: text("1\n") },
  ];
  for (
    const logs of [
      { path: "logs", type: "symlink", target: "/root/fake" },
      { path: "logs", type: "file", mode: 0o644, data: text("x\n") },
    ] as TarEntry[]
  ) {
    const graded = await gradeInDocker([...planted, logs]);
    assert.equal(graded.verdict, "fail", `${logs.type} /logs: ${graded.reason}`);
  }
});

Deno.test("the agent deleting /tests does not take the task's tests away from the grader", async () => {
  // An image whose Dockerfile made /tests, which the agent deleted: sealed as removed.
  const graded = await gradeInDocker([SOLVED], ["tests"]);
  assert.equal(graded.verdict, "pass", `${graded.bucket}: ${graded.reason}`);
});

Deno.test("a verifier of another user gets /logs/verifier as its own; for root it is root's alone (0755)", async () => {
  // The test, as 1000, writes the reward into the folder the staging handed it.
  const graded = await gradeInDocker(
    [],
    [],
    'test "$(id -u)" = 1000 && test -O /logs/verifier && echo 1 > /logs/verifier/reward.txt\n',
    "1000",
  );
  assert.equal(graded.verdict, "pass", `${graded.bucket}: ${graded.reason}`);
  // As root, the folder is root's alone: not writable for anyone else any more.
  const mode = await gradeInDocker(
    [],
    [],
    "stat -c %a:%U /logs/verifier | grep -qx 755:root && echo 1 > /logs/verifier/reward.txt\n",
  );
  assert.equal(mode.verdict, "pass", `${mode.bucket}: ${mode.reason}`);
});

Deno.test("the verifier's shell: a process left running, or the shell killed, leaves a passing reward uncounted", async () => {
  const left = await gradeInDocker(
    [],
    [],
    "(sleep 30 &) ; echo 1 > /logs/verifier/reward.txt\n",
  );
  assert.equal(left.verdict, "fail");
  // Named as it was when frozen: `sleep`, or, on a loaded machine, the subshell not yet exec'd.
  assert.match(
    left.reason,
    /^tampering: reward 1, but the verifier left 1 process running when its script ended \((sleep|bash)\)/,
  );
  const killed = await gradeInDocker(
    [],
    [],
    "echo 1 > /logs/verifier/reward.txt; kill -9 $$ $BASHPID\n",
  );
  assert.equal(killed.verdict, "fail");
  assert.match(killed.reason, /^tampering: reward 1, but the verifier's shell was killed/);
  // Rewriting /tests/test.sh as it runs changes nothing: bash holds the script in memory.
  const rewritten = await gradeInDocker(
    [],
    [],
    "echo 'echo 1 > /logs/verifier/reward.txt' >> /tests/test.sh\necho 0 > /logs/verifier/reward.txt\n",
  );
  assert.equal(rewritten.reward, 0, rewritten.reason);
});
