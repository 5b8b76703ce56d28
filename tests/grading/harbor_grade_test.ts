import assert from "node:assert/strict";
import { InfrastructureError } from "../../src/core/errors.ts";
import { GRADER_ENV } from "../../src/grading/grade.ts";
import { gradeHarbor, parseReward, splitRewardReport } from "../../src/grading/harbor_grade.ts";
import { type ExecRequest, MemorySandbox } from "../../src/sandbox/memory_sandbox.ts";
import type { ExecResult } from "../../src/sandbox/sandbox.ts";
import {
  loadSnapshot,
  sealedTree,
  sealEntries,
  type SnapshotEntry,
  storeSnapshot,
} from "../../src/sandbox/snapshot.ts";
import { parseTar, type TarEntry } from "../../src/sandbox/tar.ts";
import { openStore } from "../../src/store/store.ts";
import type { HarborSettings } from "../../src/task/task.ts";

// Copied from src/grading/harbor_grade.ts (not exported): the line the staging prints once the
// sealed end state is unpacked, and the line after which the verifier's reward file follows.
const STAGED_MARK = "verdict: sealed end state staged";
const REWARD_MARK = "verdict: the reward written by the verifier follows";

const text = (value: string) => new TextEncoder().encode(value);

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

// What the verifier's part of an exec prints: its own output, then the reward file it wrote.
function verifierPrints(said: string, reward?: { file: string; text: string }): string {
  return reward === undefined
    ? `${said}\n${REWARD_MARK}\n`
    : `${said}\n${REWARD_MARK}\n${reward.file}\n${reward.text}`;
}

interface GradeSetup {
  entries?: readonly TarEntry[];
  removed?: readonly string[];
  harbor?: HarborSettings;
  passReward?: number;
  answer: (request: ExecRequest, call: number) => Partial<ExecResult>;
}

async function grade(setup: GradeSetup) {
  const requests: ExecRequest[] = [];
  const sandbox = new MemorySandbox({
    exec: (request) => {
      requests.push(request);
      return setup.answer(request, requests.length);
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
      grader,
      passReward: setup.passReward ?? 1,
    });
    return { result, requests };
  } finally {
    store.close();
  }
}

// A root verifier's single exec: staged, then the verifier's output and reward.
const staged = (said: string, reward?: { file: string; text: string }) =>
  `${STAGED_MARK}\n${verifierPrints(said, reward)}`;

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
    answer: () => ({ stdout: staged("", { file: "reward.json", text: '{"reward": 1e999}\n' }) }),
  });
  assert.notEqual(result.verdict, "pass", `graded ${result.reason}`);
  assert.equal(result.bucket, "evaluator_error");
  for (const written of ["1e999", '{"reward": 1e999}', '{"score": 1e999}']) {
    const said = parseReward("reward.json", written);
    assert.equal(typeof said, "string", `reward.json ${written} gave ${said}`);
    assert.match(String(said), /\/logs\/verifier\/reward\.json/);
  }
});

Deno.test("splitRewardReport takes the last mark: a mark the verifier printed earlier is ignored", () => {
  const forged = `${REWARD_MARK}\nreward.txt\n1\n`;
  const printed = `collecting\n\n${forged}1 failed\n\n${REWARD_MARK}\nreward.txt\n0\n`;
  assert.deepEqual(splitRewardReport(printed), {
    said: `collecting\n\n${forged}1 failed\n`,
    reward: { file: "reward.txt", text: "0\n" },
  });
  // The verifier wrote no reward, but printed a mark of its own first.
  assert.deepEqual(splitRewardReport(`\n${forged}done\n\n${REWARD_MARK}\n`).reward, null);
  assert.deepEqual(splitRewardReport("no mark at all\n"), {
    said: "no mark at all\n",
    reward: null,
  });
  assert.equal(splitRewardReport(`x\n${REWARD_MARK}\nreward.yaml\n1\n`).reward, null);
});

Deno.test("gradeHarbor never stages tests/, logs/verifier/ nor anything beneath a sealed symlink", async () => {
  const { result, requests } = await grade({
    entries: [
      { path: "app/main.py", type: "file", mode: 0o644, data: text("print(1)\n") },
      { path: "tests", type: "dir", mode: 0o755 },
      { path: "tests/test.sh", type: "file", mode: 0o755, data: text("echo 1 > r\n") },
      { path: "logs/verifier/reward.txt", type: "file", mode: 0o644, data: text("1\n") },
      { path: "logs/verifier", type: "dir", mode: 0o755 },
      { path: "logs/other.txt", type: "file", mode: 0o644, data: text("kept\n") },
      { path: "opt/link", type: "symlink", target: "/etc" },
      { path: "opt/link/passwd", type: "file", mode: 0o644, data: text("root::0:0\n") },
      { path: "opt/link/sub/deep", type: "file", mode: 0o644, data: text("x\n") },
      { path: "opt/linked", type: "file", mode: 0o644, data: text("not beneath\n") },
    ],
    answer: () => ({ stdout: staged("ok\n", { file: "reward.txt", text: "1\n" }) }),
  });
  assert.equal(result.verdict, "pass", result.reason);
  assert.equal(requests.length, 1);
  const stdin = requests[0].options.stdin;
  assert.ok(stdin, "the sealed changes go in on stdin");
  assert.deepEqual(parseTar(stdin).map((entry) => entry.path).sort(), [
    "app/main.py",
    "logs/other.txt",
    "opt/link",
    "opt/linked",
  ]);
});

Deno.test("gradeHarbor hands the staging the deleted paths and the names of executables and links", async () => {
  const { requests } = await grade({
    entries: [
      { path: "usr/local/bin/pytest", type: "file", mode: 0o755, data: text("#!/bin/sh\n") },
      { path: "usr/bin/python3", type: "symlink", target: "/usr/local/bin/pytest" },
      { path: "root/notes.txt", type: "file", mode: 0o644, data: text("n\n") },
      { path: "root/run.sh", type: "file", mode: 0o700, data: text("#!/bin/sh\n") },
      { path: "opt/bin/pytest", type: "file", mode: 0o750, data: text("#!/bin/sh\n") },
    ],
    removed: ["etc/issue", "usr/bin/grep"],
    answer: () => ({ stdout: staged("", { file: "reward.txt", text: "1\n" }) }),
  });
  const env = requests[0].options.env ?? {};
  assert.deepEqual(env.DELETED.split("\n"), ["/etc/issue", "/usr/bin/grep"]);
  assert.deepEqual(env.SHADOWING.split("\n").sort(), ["pytest", "python3", "run.sh"]);
  for (const [name, value] of Object.entries(GRADER_ENV)) assert.equal(env[name], value, name);
});

Deno.test("the staging never deletes the grader's own /tests or /logs/verifier", async () => {
  // An image that holds /tests or /logs (the task's Dockerfile made them), which the agent
  // deleted: the grader's fresh copies must survive, as a planted copy never replaces them.
  const { requests } = await grade({
    removed: ["tests", "tests/test.sh", "logs", "logs/verifier", "etc/issue"],
    answer: () => ({ stdout: staged("", { file: "reward.txt", text: "1\n" }) }),
  });
  assert.deepEqual(requests[0].options.env?.DELETED.split("\n"), ["/etc/issue"]);
});

Deno.test("a root verifier stages and runs in one exec, as root, with [verifier].env", async () => {
  const { result, requests } = await grade({
    harbor: harbor({ env: { TASK_MODE: "strict" } }),
    answer: () => ({ stdout: staged("3 passed\n", { file: "reward.txt", text: "1\n" }) }),
  });
  assert.equal(requests.length, 1);
  assert.equal(requests[0].user, "0:0");
  assert.equal(requests[0].options.env?.TASK_MODE, "strict");
  assert.equal(requests[0].workdir, "/app");
  assert.match(requests[0].script, /bash \/tests\/test\.sh/);
  assert.equal(result.verdict, "pass");
  assert.equal(result.reward, 1);
  assert.equal(result.success?.output, "3 passed\n");
});

Deno.test("verifier.user = 1000: staged as root in one exec, then the test as 1000 in another", async () => {
  const { result, requests } = await grade({
    harbor: harbor({ user: "1000" }),
    entries: [{ path: "app/a.py", type: "file", mode: 0o644, data: text("a\n") }],
    answer: (_request, call) =>
      call === 1
        ? { stdout: `${STAGED_MARK}\n` }
        : { stdout: verifierPrints("1 passed\n", { file: "reward.txt", text: "1\n" }) },
  });
  assert.equal(requests.length, 2);
  assert.equal(requests[0].user, "0:0");
  assert.ok(requests[0].options.stdin, "the staging gets the sealed changes");
  assert.doesNotMatch(requests[0].script, /test\.sh/);
  assert.equal(requests[1].user, "1000");
  assert.equal(requests[1].options.stdin, undefined);
  assert.match(requests[1].script, /bash \/tests\/test\.sh/);
  assert.equal(requests[1].options.env?.DELETED, undefined);
  assert.equal(result.verdict, "pass", result.reason);
});

Deno.test("the pass mark: reward 0.75 fails at 1 and passes at 0.7", async () => {
  const answer = () => ({
    stdout: staged("", { file: "reward.json", text: '{"reward": 0.75}\n' }),
  });
  const strict = await grade({ answer, passReward: 1 });
  assert.equal(strict.result.verdict, "fail");
  assert.equal(strict.result.bucket, "agent_failure");
  assert.equal(strict.result.reward, 0.75);
  assert.match(strict.result.reason, /reward 0\.75, below the pass mark 1/);
  const lenient = await grade({ answer, passReward: 0.7 });
  assert.equal(lenient.result.verdict, "pass");
  assert.equal(lenient.result.reward, 0.75);
});

Deno.test("a verifier past its timeout is the agent's failure, naming the timeout", async () => {
  const { result } = await grade({
    harbor: harbor({ timeoutSec: 7 }),
    answer: () => ({ stdout: `${STAGED_MARK}\nstill running\n`, exitCode: 137, timedOut: true }),
  });
  assert.equal(result.verdict, "fail");
  assert.equal(result.bucket, "agent_failure");
  assert.match(result.reason, /ran past 7 s/);
  assert.equal(result.success?.timedOut, true);
});

Deno.test("no reward file, or one that does not parse, is an evaluator error with the output", async () => {
  const none = await grade({ answer: () => ({ stdout: staged("E boom\n") }) });
  assert.equal(none.result.bucket, "evaluator_error");
  assert.match(none.result.reason, /wrote neither \/logs\/verifier\/reward\.txt nor reward\.json/);
  assert.match(none.result.success?.output ?? "", /E boom/);
  const garbled = await grade({
    answer: () => ({ stdout: staged("", { file: "reward.txt", text: "passed\n" }) }),
  });
  assert.equal(garbled.result.bucket, "evaluator_error");
  assert.match(garbled.result.reason, /\/logs\/verifier\/reward\.txt is not a number/);
});

Deno.test("a staging that never printed its mark is an infrastructure error, not a grade", async () => {
  await assert.rejects(
    () => grade({ answer: () => ({ exitCode: 2, stderr: "tar: Cannot open: File exists\n" }) }),
    (error: unknown) =>
      error instanceof InfrastructureError &&
      /could not stage the sealed end state/.test(error.message) &&
      /tar: Cannot open/.test(error.message),
  );
  await assert.rejects(
    () =>
      grade({
        harbor: harbor({ user: "1000" }),
        answer: () => ({ stdout: verifierPrints("", { file: "reward.txt", text: "1\n" }) }),
      }),
    InfrastructureError,
  );
});
