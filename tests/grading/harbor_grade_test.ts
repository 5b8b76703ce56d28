import assert from "node:assert/strict";
import { InfrastructureError } from "../../src/core/errors.ts";
import { GRADER_ENV } from "../../src/grading/grade.ts";
import { gradeHarbor, parseReward, splitEndReport } from "../../src/grading/harbor_grade.ts";
import { type ExecRequest, MemorySandbox } from "../../src/engine/memory_sandbox.ts";
import type { ExecResult } from "../../src/engine/sandbox.ts";
import {
  loadSnapshot,
  sealedTree,
  sealEntries,
  type SnapshotEntry,
  storeSnapshot,
} from "../../src/workspace/snapshot.ts";
import { parseTar, type TarEntry } from "../../src/engine/tar.ts";
import { openStore } from "../../src/store/store.ts";
import type { HarborSettings } from "../../src/task/task.ts";

// Copied from src/grading/_harbor_staging.ts and _harbor_verifier.ts (not exported): the line the
// staging prints once the sealed end state is unpacked, and the line the verifier's shell prints
// once the script ended.
const STAGED_MARK = "verdict: sealed end state staged";
const END_MARK = "verdict: the verifier ended";
const END_OF_LIST = "verdict: end of the list";

/** The staging exec's stdin: its list lines (`D`, `F`, `T`, `-`), then the tar of the changes. */
function stagingInput(stdin: Uint8Array | undefined): { lines: string[]; tar: Uint8Array } {
  assert.ok(stdin, "the staging reads its list and the sealed changes on stdin");
  const at = new TextDecoder("latin1").decode(stdin).indexOf(`\n${END_OF_LIST}\n`);
  const lines = at < 0 ? [] : new TextDecoder().decode(stdin.subarray(0, at)).split("\n");
  const end = at < 0
    ? new TextDecoder("latin1").decode(stdin).indexOf(`${END_OF_LIST}\n`) + END_OF_LIST.length + 1
    : at + END_OF_LIST.length + 2;
  return { lines, tar: stdin.subarray(end) };
}

/** The list lines of one kind, without their kind. */
function listed(lines: string[], kind: string): string[] {
  return lines.filter((line) => line.startsWith(`${kind} `)).map((line) => line.slice(2));
}

const text = (value: string) => new TextEncoder().encode(value);
const TEST_SH =
  "cd /app\npython3 -m pytest -q /tests/test_a.py && echo 1 > /logs/verifier/reward.txt\n";

function harbor(verifier: Partial<HarborSettings["verifier"]> = {}): HarborSettings {
  return {
    schemaVersion: "1.0",
    environment: { dockerfile: null, dockerImage: "img", buildTimeoutSec: 600 },
    verifier: { timeoutSec: 30, env: {}, user: "root", ...verifier },
    agentTimeoutSec: 60,
    solveScript: false,
    metadata: {},
  };
}

// What the verifier's exec does: prints its output and its shell's end report, writes the reward.
interface Verified {
  said?: string;
  reward?: { file: string; text: string };
  status?: number;
  left?: string[];
  exitCode?: number;
  timedOut?: boolean;
}

interface GradeSetup {
  entries?: readonly TarEntry[];
  removed?: readonly string[];
  harbor?: HarborSettings;
  passReward?: number;
  testSh?: string;
  verified?: Verified;
  stage?: Partial<ExecResult>;
}

async function grade(setup: GradeSetup) {
  const requests: ExecRequest[] = [];
  const sandbox = new MemorySandbox({
    exec: (request) => {
      requests.push(request);
      if (requests.length === 1) return setup.stage ?? { stdout: `${STAGED_MARK}\n` };
      const verified = setup.verified ?? {};
      request.container.files.mkdir("/logs/verifier");
      if (verified.reward) {
        request.container.files.write(
          `/logs/verifier/${verified.reward.file}`,
          verified.reward.text,
        );
      }
      const left = verified.left ?? [];
      return {
        stdout: `${verified.said ?? ""}\n${END_MARK} ${verified.status ?? 0} ${left.length}${
          left.map((name) => ` ${name}`).join("")
        }\n`,
        exitCode: verified.exitCode ?? 0,
        timedOut: verified.timedOut ?? false,
      };
    },
  });
  const store = openStore(":memory:");
  try {
    const files = sealEntries(setup.entries ?? []);
    const removed: SnapshotEntry[] = (setup.removed ?? []).map((path) => ({
      path,
      type: "removed",
    }));
    const root = storeSnapshot(
      store.blobs,
      sealedTree([...files.entries, ...removed], files.contents),
    );
    const grader = await sandbox.start({
      image: "img",
      workdir: "/app",
      network: "none",
      labels: {},
    });
    const result = await gradeHarbor({
      harbor: setup.harbor ?? harbor(),
      workdir: "/app",
      blobs: store.blobs,
      final: loadSnapshot(store.blobs, root),
      tests: [{ path: "test.sh", type: "file", mode: 0o755, data: text(setup.testSh ?? TEST_SH) }],
      grader,
      passReward: setup.passReward ?? 1,
    });
    return { result, requests };
  } finally {
    store.close();
  }
}

const PASSED = { said: "2 passed in 0.01s\n", reward: { file: "reward.txt", text: "1\n" } };

Deno.test("parseReward reads reward.txt as one number, and names the file when it is not", () => {
  assert.equal(parseReward("reward.txt", "1"), 1);
  assert.equal(parseReward("reward.txt", " 0.5\n"), 0.5);
  for (const bad of ["", "yes", "NaN", "Infinity", "-Infinity"]) {
    const said = parseReward("reward.txt", bad);
    assert.equal(typeof said, "string", `reward.txt ${JSON.stringify(bad)} is refused`);
    assert.match(String(said), /\/logs\/verifier\/reward\.txt is not a number/);
  }
});

Deno.test("parseReward reads reward.json's reward, or its only number, and refuses the rest by name", () => {
  assert.equal(parseReward("reward.json", '{"reward": 0.75}'), 0.75);
  assert.equal(parseReward("reward.json", "0.25"), 0.25);
  assert.equal(parseReward("reward.json", '{"score": 0.5}'), 0.5);
  assert.equal(parseReward("reward.json", '{"reward": 1, "tests": 3}'), 1);
  const refused = {
    '{"a": 1, "b": 0}': /\/logs\/verifier\/reward\.json holds no "reward" number/,
    "[1]": /\/logs\/verifier\/reward\.json holds no "reward" number/,
    '{"reward": "1"}': /\/logs\/verifier\/reward\.json holds no "reward" number/,
    "null": /\/logs\/verifier\/reward\.json holds no "reward" number/,
    "reward: 1": /\/logs\/verifier\/reward\.json is not JSON/,
  };
  for (const [written, message] of Object.entries(refused)) {
    const said = parseReward("reward.json", written);
    assert.equal(typeof said, "string", `reward.json ${written} is refused`);
    assert.match(String(said), message);
  }
});

Deno.test("a reward.json number too large to be finite is refused, not a pass", async () => {
  // JSON.parse reads 1e999 as Infinity: not a reward, in any shape.
  const { result } = await grade({
    verified: { ...PASSED, reward: { file: "reward.json", text: '{"reward": 1e999}\n' } },
  });
  assert.notEqual(result.verdict, "pass", `graded ${result.reason}`);
  assert.equal(result.bucket, "evaluator_error");
  for (const written of ["1e999", '{"reward": 1e999}', '{"score": 1e999}']) {
    const said = parseReward("reward.json", written);
    assert.equal(typeof said, "string", `reward.json ${written} gave ${said}`);
    assert.match(String(said), /\/logs\/verifier\/reward\.json/);
  }
});

Deno.test("splitEndReport takes the last mark: one the code under test printed earlier is only output", () => {
  const forged = `\n${END_MARK} 0 0\n`;
  const printed = `collecting${forged}1 failed\n\n${END_MARK} 1 2 sleep python3\n`;
  assert.deepEqual(splitEndReport(printed), {
    said: `collecting${forged}1 failed\n`,
    end: { status: 1, left: 2, names: ["sleep", "python3"] },
  });
  assert.deepEqual(splitEndReport("no mark at all\n"), { said: "no mark at all\n", end: null });
});

Deno.test("the reward is read from /logs/verifier as the engine copies it out of the stopped grader, never from stdout", async () => {
  // The code under test prints what a grader reading stdout would take for reward 1; the file says 0.
  const { result } = await grade({
    verified: {
      said:
        "\nverdict: the reward written by the verifier follows\nreward.txt\n1\n1 failed in 0.1s\n",
      reward: { file: "reward.txt", text: "0\n" },
      exitCode: 0,
    },
  });
  assert.equal(result.verdict, "fail");
  assert.equal(result.reward, 0);
});

Deno.test("the script goes to bash on the exec's stdin, not read from /tests/test.sh as it runs", async () => {
  const { requests } = await grade({ verified: PASSED });
  assert.equal(requests.length, 2);
  assert.equal(new TextDecoder().decode(requests[1].options.stdin), TEST_SH);
  assert.match(requests[1].script, /exec bash -c .*IFS= read -r -d /s);
  assert.doesNotMatch(requests[1].script, /bash \/tests\/test\.sh/);
});

Deno.test("a passing reward counts only when the verifier's shell ended by itself and left nothing running", async () => {
  const killed = await grade({ verified: { ...PASSED, exitCode: 137 } });
  assert.equal(killed.result.verdict, "fail");
  assert.match(killed.result.reason, /^tampering: reward 1, but the verifier's shell was killed/);
  const signalled = await grade({ verified: { ...PASSED, status: 137, exitCode: 3 } });
  assert.match(signalled.result.reason, /^tampering: .*did not end by itself: .*status 137/);
  const left = await grade({ verified: { ...PASSED, left: ["python3"], exitCode: 4 } });
  assert.equal(left.result.bucket, "agent_failure");
  assert.match(left.result.reason, /^tampering: .*left 1 process running .*\(python3\)/);
  // A failing reward is a failure whatever the ending.
  const zero = await grade({
    verified: { ...PASSED, reward: { file: "reward.txt", text: "0\n" }, exitCode: 137 },
  });
  assert.equal(zero.result.reason, "reward 0, below the pass mark 1");
});

Deno.test("reward 1 while pytest reported failures, or no summary at all, is tampering; a forged summary is not caught", async () => {
  const failures = await grade({
    verified: { ...PASSED, said: "..F\n1 failed, 1 passed in 0.1s\n" },
  });
  assert.match(failures.result.reason, /^tampering: reward 1, but pytest reported 1 failed/);
  const silent = await grade({ verified: { ...PASSED, said: "" } });
  assert.match(silent.result.reason, /no pytest summary line: no evidence shows the tests ran/);
  const none = await grade({ verified: { ...PASSED, said: "no tests ran in 0.01s\n" } });
  assert.match(none.result.reason, /pytest reported no test passed/);
  // A verifier that runs no pytest needs no pytest summary.
  const plain = await grade({
    testSh: "test -f /app/out && echo 1 > /logs/verifier/reward.txt\n",
    verified: { ...PASSED, said: "" },
  });
  assert.equal(plain.result.verdict, "pass", plain.result.reason);
  assert.equal(plain.result.reason, "reward 1 (not cross-checked: the verifier runs no pytest)");
  // The documented limit: code inside pytest can print a passing summary of its own.
  const forged = await grade({ verified: { ...PASSED, said: "2 passed in 0.01s\n" } });
  assert.equal(forged.result.verdict, "pass");
});

Deno.test("reward.txt and reward.json that disagree are tampering; /logs/verifier gone is tampering", async () => {
  const sandboxed = await grade({
    verified: PASSED,
    entries: [],
  });
  assert.equal(sandboxed.result.verdict, "pass", sandboxed.result.reason);
  const both = await gradeWithFiles({ "reward.txt": "1\n", "reward.json": '{"reward": 0}' });
  assert.match(both.reason, /^tampering: .*both reward\.txt \(1\) and reward\.json \(0\)/);
});

// Grades with the verifier writing several files into /logs/verifier.
async function gradeWithFiles(written: Record<string, string>) {
  const sandbox = new MemorySandbox({
    exec: (request) => {
      if (request.options.env?.VERIFIER_USER !== undefined) return { stdout: `${STAGED_MARK}\n` };
      for (const [name, value] of Object.entries(written)) {
        request.container.files.write(`/logs/verifier/${name}`, value);
      }
      return { stdout: `2 passed in 0.1s\n\n${END_MARK} 0 0\n` };
    },
  });
  const store = openStore(":memory:");
  try {
    const root = storeSnapshot(store.blobs, sealEntries([]));
    return await gradeHarbor({
      harbor: harbor(),
      workdir: "/app",
      blobs: store.blobs,
      final: loadSnapshot(store.blobs, root),
      tests: [{ path: "test.sh", type: "file", mode: 0o755, data: text(TEST_SH) }],
      grader: await sandbox.start({ image: "img", workdir: "/app", network: "none", labels: {} }),
      passReward: 1,
    });
  } finally {
    store.close();
  }
}

Deno.test("a change at a grader-hijack path is tampering before anything runs, unless the task allows it", async () => {
  const preload = {
    path: "etc/ld.so.preload",
    type: "file",
    mode: 0o644,
    data: text("/x.so\n"),
  } as const;
  const { result, requests } = await grade({ entries: [preload], verified: PASSED });
  assert.equal(requests.length, 0, "nothing ran");
  assert.equal(result.bucket, "agent_failure");
  assert.match(
    result.reason,
    /^tampering: the agent changed \/etc\/ld\.so\.preload, the dynamic loader's/,
  );
  const allowed = await grade({
    entries: [preload],
    harbor: harbor({ allowedHijackPaths: ["/etc"] }),
    verified: PASSED,
  });
  assert.equal(allowed.result.verdict, "pass", allowed.result.reason);
});

Deno.test("gradeHarbor never stages tests/, logs/verifier/, bytecode caches nor anything beneath a sealed symlink", async () => {
  const { result, requests } = await grade({
    entries: [
      { path: "app/main.py", type: "file", mode: 0o644, data: text("print(1)\n") },
      { path: "app/__pycache__/main.cpython-311.pyc", type: "file", mode: 0o644, data: text("x") },
      { path: "tests", type: "dir", mode: 0o755 },
      { path: "tests/test.sh", type: "file", mode: 0o755, data: text("echo 1 > r\n") },
      { path: "logs/verifier/reward.txt", type: "file", mode: 0o644, data: text("1\n") },
      { path: "logs/verifier", type: "dir", mode: 0o755 },
      { path: "logs/other.txt", type: "file", mode: 0o644, data: text("kept\n") },
      { path: "opt/link", type: "symlink", target: "/srv" },
      { path: "opt/link/passwd", type: "file", mode: 0o644, data: text("root::0:0\n") },
      { path: "opt/link/sub/deep", type: "file", mode: 0o644, data: text("x\n") },
      { path: "opt/linked", type: "file", mode: 0o644, data: text("not beneath\n") },
    ],
    verified: PASSED,
  });
  assert.equal(result.verdict, "pass", result.reason);
  const { lines, tar } = stagingInput(requests[0].options.stdin);
  assert.deepEqual(listed(lines, "F").sort(), [
    "/app/main.py",
    "/logs/other.txt",
    "/opt/link",
    "/opt/linked",
  ]);
  assert.deepEqual(parseTar(tar).map((entry) => entry.path).sort(), [
    "app/main.py",
    "logs/other.txt",
    "opt/link",
    "opt/linked",
  ]);
});

Deno.test("gradeHarbor hands the staging the deleted paths, the names of executables and links, and the workdir", async () => {
  const { requests } = await grade({
    entries: [
      { path: "usr/local/bin/tool", type: "file", mode: 0o755, data: text("#!/bin/sh\n") },
      { path: "usr/local/bin/other", type: "symlink", target: "/app/x.py" },
      { path: "root/notes.txt", type: "file", mode: 0o644, data: text("n\n") },
      { path: "root/run.sh", type: "file", mode: 0o700, data: text("#!/bin/sh\n") },
    ],
    removed: ["etc/issue", "usr/bin/grep"],
    verified: PASSED,
  });
  const env = requests[0].options.env ?? {};
  const { lines } = stagingInput(requests[0].options.stdin);
  assert.deepEqual(listed(lines, "D"), ["/etc/issue", "/usr/bin/grep"]);
  assert.deepEqual(listed(lines, "-").sort(), ["other", "run.sh", "tool"]);
  assert.equal(env.WORKDIR, "/app");
  assert.match(requests[0].script, /zz-verdict-workdir\.pth/);
  for (const [name, value] of Object.entries(GRADER_ENV)) {
    assert.equal(requests[1].options.env?.[name], value, name);
  }
});

Deno.test("the staging never deletes the grader's own /tests or /logs/verifier", async () => {
  const { requests } = await grade({
    removed: ["tests", "tests/test.sh", "logs", "logs/verifier", "etc/issue"],
    verified: PASSED,
  });
  assert.deepEqual(listed(stagingInput(requests[0].options.stdin).lines, "D"), ["/etc/issue"]);
});

Deno.test("staged as root, then the verifier as [verifier].user with [verifier].env in the workdir", async () => {
  const { result, requests } = await grade({
    harbor: harbor({ user: "1000", env: { TASK_MODE: "strict" } }),
    verified: PASSED,
  });
  assert.equal(requests.length, 2);
  assert.equal(requests[0].user, "0:0");
  assert.equal(requests[0].options.env?.VERIFIER_USER, "1000");
  assert.equal(requests[1].user, "1000");
  assert.equal(requests[1].options.env?.TASK_MODE, "strict");
  assert.equal(requests[1].workdir, "/app");
  assert.equal(requests[1].options.env?.DELETED, undefined);
  assert.equal(result.verdict, "pass", result.reason);
  assert.equal(result.success?.output, "2 passed in 0.01s\n");
});

Deno.test("the pass mark: reward 0.75 fails at 1 and passes at 0.7", async () => {
  const verified = { ...PASSED, reward: { file: "reward.json", text: '{"reward": 0.75}\n' } };
  const strict = await grade({ verified, passReward: 1 });
  assert.equal(strict.result.verdict, "fail");
  assert.equal(strict.result.bucket, "agent_failure");
  assert.equal(strict.result.reward, 0.75);
  assert.match(strict.result.reason, /reward 0\.75, below the pass mark 1/);
  const lenient = await grade({ verified, passReward: 0.7 });
  assert.equal(lenient.result.verdict, "pass", lenient.result.reason);
  assert.equal(lenient.result.reward, 0.75);
});

Deno.test("a verifier past its timeout is the agent's failure, naming the timeout", async () => {
  const { result } = await grade({
    harbor: harbor({ timeoutSec: 7 }),
    verified: { ...PASSED, exitCode: 137, timedOut: true },
  });
  assert.equal(result.verdict, "fail");
  assert.equal(result.bucket, "agent_failure");
  assert.match(result.reason, /ran past 7 s/);
  assert.equal(result.success?.timedOut, true);
});

Deno.test("no reward file, or one that does not parse, is an evaluator error with the output", async () => {
  const none = await grade({ verified: { said: "E boom\n" } });
  assert.equal(none.result.bucket, "evaluator_error");
  assert.match(none.result.reason, /wrote neither \/logs\/verifier\/reward\.txt nor reward\.json/);
  assert.match(none.result.success?.output ?? "", /E boom/);
  const garbled = await grade({
    verified: { ...PASSED, reward: { file: "reward.txt", text: "passed\n" } },
  });
  assert.equal(garbled.result.bucket, "evaluator_error");
  assert.match(garbled.result.reason, /\/logs\/verifier\/reward\.txt is not a number/);
});

Deno.test("a staging that never printed its mark is an infrastructure error, not a grade", async () => {
  await assert.rejects(
    () => grade({ stage: { exitCode: 2, stderr: "tar: Cannot open: File exists\n" } }),
    (error: unknown) =>
      error instanceof InfrastructureError &&
      /could not stage the sealed end state/.test(error.message) &&
      /tar: Cannot open/.test(error.message),
  );
});
