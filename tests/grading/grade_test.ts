import assert from "node:assert/strict";
import { InfrastructureError } from "../../src/core/errors.ts";
import type { StagedTask } from "../../src/eval/trial/trial_plan.ts";
import { stageTask } from "../../src/eval/trial/staged_task.ts";
import { type Grade, grade, GRADER_ENV, graderImageTar } from "../../src/grading/grade.ts";
import { ZERO_COUNTERS } from "../../src/store/run_counters.ts";
import { AGENT_USER } from "../../src/engine/sandbox.ts";
import { type Container, startContainer } from "../../src/engine/container.ts";
import { DerivedImages } from "../../src/engine/derived_image.ts";
import { sealEntries, type Snapshot, storeSnapshot } from "../../src/workspace/snapshot.ts";
import type { TarEntry } from "../../src/engine/tar.ts";
import { openStore } from "../../src/store/store.ts";
import type { TreeEntry } from "../../src/task/file_tree.ts";
import { loadTask } from "../../src/task/load_task.ts";
import { requireDocker } from "../_docker.ts";

const LABELS = { "verdict.test": "grade_test" };
const bytes = (text: string) => new TextEncoder().encode(text);

/** An end state the grader's own `tar` can unpack: odd names, long paths, links, bare modes. */
const PLAIN: TarEntry[] = [
  { path: "answer.txt", type: "file", mode: 0o644, data: bytes("yes\n") },
  { path: "secret", type: "file", mode: 0o000, data: new Uint8Array([0, 1, 2]) },
  { path: "empty", type: "dir", mode: 0o750 },
  { path: "open", type: "dir", mode: 0o777 },
  { path: "open/shared.txt", type: "file", mode: 0o666, data: bytes("anyone") },
  { path: "link", type: "symlink", target: "answer.txt" },
  { path: "dangling", type: "symlink", target: "/nowhere" },
  { path: "odd", type: "dir", mode: 0o700 },
  { path: "odd/-rf", type: "file", mode: 0o700, data: bytes("dash") },
  { path: "odd/it's $(touch PWNED) `x`", type: "file", mode: 0o644, data: bytes("quote") },
  { path: "odd/line\nbreak:1:", type: "file", mode: 0o444, data: bytes("newline") },
  // Past ustar's 100 bytes: a PAX header.
  ...Array.from({ length: 12 }, (_, depth): TarEntry => ({
    path: Array(depth + 1).fill("long-folder").join("/"),
    type: "dir",
    mode: 0o755,
  })),
  { path: `${"long-folder/".repeat(12)}file.txt`, type: "file", mode: 0o640, data: bytes("pax") },
];

/** An end state an unprivileged `tar` cannot rebuild: read-only folders, set-id and sticky bits. */
const AWKWARD: TarEntry[] = [
  ...PLAIN,
  { path: "locked", type: "dir", mode: 0o555 },
  { path: "locked/inner", type: "dir", mode: 0o500 },
  { path: "locked/inner/deep.txt", type: "file", mode: 0o400, data: bytes("deep") },
  { path: "setid", type: "file", mode: 0o6755, data: bytes("#!/bin/sh\n") },
  { path: "shared", type: "dir", mode: 0o1777 },
];

/** A success script that shows the umask it runs under, then checks the answer. */
const TESTS: TreeEntry[] = [
  {
    path: "test.sh",
    type: "file",
    mode: 0o777,
    data: bytes("#!/bin/sh\numask\ngrep -qx yes answer.txt\n"),
  },
];

/**
 * Grades an end state of the trivial task (on `image`, with `tests` and, when it is named, a
 * canary) in graders started from `graderImage(staged)` with `workdir`, and hands the success
 * script's grader, the outcome and the number of `docker cp` calls into it to `inspect`.
 */
async function gradeEndState(
  end: TarEntry[],
  image: string,
  grader: { image: (staged: StagedTask) => Promise<string>; workdir: string },
  inspect: (
    graded: Promise<Grade>,
    container: Container,
    final: Snapshot,
    copies: () => number,
  ) => Promise<void>,
  { tests = TESTS, canary }: { tests?: TreeEntry[]; canary?: string } = {},
): Promise<void> {
  const docker = await requireDocker();
  const loaded = await loadTask("tests/fixtures/bench/trivial");
  const success = { ...loaded.manifest.success, ...(canary ? { canary } : {}) };
  const task = { ...loaded, manifest: { ...loaded.manifest, image, success } };
  const staged = {
    ...await stageTask(task),
    tests,
    graderTar: graderImageTar("/workspace", tests),
  };
  const store = openStore(":memory:");
  const final = sealEntries(end);
  storeSnapshot(store.blobs, final);
  const start = async () =>
    startContainer(docker, {
      image: await grader.image(staged),
      workdir: grader.workdir,
      network: "none",
      labels: LABELS,
      user: AGENT_USER,
    });
  const container = await start();
  const canaryGrader = canary ? await start() : undefined;
  let copies = 0;
  const copyIn = container.copyIn.bind(container);
  container.copyIn = (tar, destination) => (copies++, copyIn(tar, destination));
  try {
    const graded = grade({
      task,
      blobs: store.blobs,
      initial: staged.initial,
      final,
      counters: ZERO_COUNTERS,
      tests: staged.tests,
      grader: container,
      canaryGrader,
    });
    await inspect(graded, container, final, () => copies);
  } finally {
    await container.remove();
    await canaryGrader?.remove();
    store.close();
  }
}

const END_STATES = [
  { name: "unpacked by its own tar in the script's exec", end: PLAIN, copies: 0 },
  { name: "copied in by the engine, for modes tar cannot set", end: AWKWARD, copies: 1 },
];

for (const image of ["verdict/busybox", "verdict/python:3.11"]) {
  for (const { name, end, copies } of END_STATES) {
    Deno.test(`the grader gets exactly the sealed end state, ${name} (${image})`, async () => {
      const docker = await requireDocker();
      const derived = new DerivedImages(docker, LABELS);
      const graderImage = (staged: StagedTask) => derived.imageFor(image, staged.graderTar);
      await gradeEndState(end, image, { image: graderImage, workdir: "/workspace" }, async (
        grading,
        grader,
        final,
        copied,
      ) => {
        const graded = await grading;
        assert.equal(graded.verdict, "pass", graded.reason);
        assert.equal(copied(), copies, "how the workspace came in");
        assert.equal(
          graded.success?.output,
          "0022\n",
          "the script gets the image's umask, and nothing of the staging in its output",
        );
        const sealed = sealEntries(await grader.copyOut("/workspace"), "workspace");
        assert.deepEqual(sealed.entries, final.entries);
        const owners = await grader.exec(
          "stat -c '%u %a %n' . odd/-rf /verdict/tests /verdict/tests/test.sh; ls /",
          { timeoutMs: 10_000 },
        );
        assert.match(
          owners.stdout,
          /^1000 755 \.\n1000 700 odd\/-rf\n0 755 \/verdict\/tests\n0 755 \/verdict\/tests\/test\.sh\n/,
          "workspace files are the agent's; the tests are root's and writable by no one else",
        );
        assert.doesNotMatch(owners.stdout, /PWNED/);
        const tamper = await grader.exec("echo exit 0 > /verdict/tests/test.sh", {
          timeoutMs: 10_000,
        });
        assert.notEqual(tamper.exitCode, 0, "the success script's user cannot edit the tests");
      });
    });
  }
}

Deno.test("a grader that cannot unpack the workspace is an infrastructure error, never a verdict", async () => {
  // The plain image, with a workdir the agent's user may not write to.
  const plain = { image: () => Promise.resolve("verdict/busybox"), workdir: "/usr" };
  await gradeEndState(PLAIN, "verdict/busybox", plain, async (grading) => {
    await assert.rejects(
      () => grading,
      (error: Error) =>
        error instanceof InfrastructureError &&
        /could not stage the sealed workspace in the grading container: .*(Permission denied|can't)/i
          .test(error.message),
    );
  });
});

Deno.test("the grader's image holds the tests owned by root and an empty workdir owned by the agent", () => {
  const tar = graderImageTar("/srv/app", [
    { path: "test.sh", type: "file", mode: 0o755, data: bytes("exit 0\n") },
  ]);
  const names: string[] = [];
  for (let offset = 0; offset + 512 <= tar.length; offset += 512) {
    const header = tar.subarray(offset, offset + 512);
    if (header.every((byte) => byte === 0)) break;
    const name = new TextDecoder().decode(header.subarray(0, 100)).replace(/\0.*$/s, "");
    const uid = parseInt(new TextDecoder().decode(header.subarray(108, 116)), 8);
    const size = parseInt(new TextDecoder().decode(header.subarray(124, 136)), 8);
    names.push(`${uid} ${name}`);
    offset += Math.ceil(size / 512) * 512;
  }
  assert.deepEqual(names.filter((name) => !name.endsWith(".pth")), [
    "1000 srv/app/",
    "0 verdict/",
    "0 verdict/tests/",
    "0 verdict/tests/test.sh",
    "0 verdict/grader/",
    "0 verdict/evidence/",
    "0 verdict/grader/verdict_grader_path.py",
    "0 verdict/grader/verdict_evidence.py",
    "0 verdict/grader/verdict_pytest.py",
    "1000 verdict/evidence/tests",
  ]);
  assert.ok(
    names.includes("0 usr/lib/python3/dist-packages/~verdict-grader.pth"),
    "root's .pth puts the workdir at the end of sys.path",
  );
});

const script = (path: string, text: string): TreeEntry => ({
  path,
  type: "file",
  mode: 0o755,
  data: bytes(text),
});

/**
 * A workspace that would subvert a naive `python3 -m pytest` run from the workdir: a `pytest`
 * package, a plugin declared by a `*.dist-info` folder, and bytecode caches.
 */
const HOSTILE: TarEntry[] = [
  { path: "answer.txt", type: "file", mode: 0o644, data: bytes("yes\n") },
  { path: "pytest", type: "dir", mode: 0o755 },
  { path: "pytest/__init__.py", type: "file", mode: 0o644, data: bytes("") },
  {
    path: "pytest/__main__.py",
    type: "file",
    mode: 0o644,
    data: bytes("print('SHADOW PYTEST')\n"),
  },
  { path: "helpers-1.0.dist-info", type: "dir", mode: 0o755 },
  {
    path: "helpers-1.0.dist-info/METADATA",
    type: "file",
    mode: 0o644,
    data: bytes("Metadata-Version: 2.1\nName: helpers\nVersion: 1.0\n"),
  },
  {
    path: "helpers-1.0.dist-info/entry_points.txt",
    type: "file",
    mode: 0o644,
    data: bytes("[pytest11]\nhelpers = helpers_plugin\n"),
  },
  {
    path: "helpers_plugin.py",
    type: "file",
    mode: 0o644,
    data: bytes("print('PLUGIN LOADED')\n"),
  },
  { path: "pkg", type: "dir", mode: 0o755 },
  { path: "pkg/mod.py", type: "file", mode: 0o644, data: bytes("VALUE = 1\n") },
  { path: "pkg/__pycache__", type: "dir", mode: 0o755 },
  {
    path: "pkg/__pycache__/mod.cpython-311.pyc",
    type: "file",
    mode: 0o644,
    data: bytes("forged"),
  },
  { path: "stray.pyc", type: "file", mode: 0o644, data: bytes("forged") },
];

Deno.test("each grading script gets a fresh grader, the same environment, and a workspace that cannot stand in for pytest", async () => {
  const docker = await requireDocker();
  const derived = new DerivedImages(docker, LABELS);
  const image = "verdict/python:3.11";
  const graderImage = (staged: StagedTask) => derived.imageFor(image, staged.graderTar);
  // A naive success script: `python3 -m pytest` from the workdir, as many task authors write it.
  const show = "env | grep -E '^(PYTHON|PYTEST)' | sort\nfind . | sort\n";
  const tests = [
    script("test.sh", `#!/bin/sh\ntouch /tmp/success-ran\npython3 -m pytest --version\n${show}`),
    // Fails in a fresh grader; passes (tampering) if it ran where the success script did.
    script("canary.sh", `#!/bin/sh\n${show}test -e /tmp/success-ran\n`),
  ];
  await gradeEndState(
    HOSTILE,
    image,
    { image: graderImage, workdir: "/workspace" },
    async (grading) => {
      const graded = await grading;
      assert.equal(graded.verdict, "pass", graded.reason);
      assert.equal(
        graded.canary?.exitCode,
        1,
        "the canary did not see the success script's marker",
      );
      const output = graded.success?.output ?? "";
      assert.match(output, /pytest 7\.\d+\.\d+/, "the image's pytest ran");
      assert.doesNotMatch(output, /SHADOW PYTEST|PLUGIN LOADED/);
      const env = Object.entries(GRADER_ENV).map(([key, value]) => `${key}=${value}\n`).sort();
      for (const run of [graded.success, graded.canary]) {
        assert.ok(run?.output.includes(env.join("")), `${run?.script}: ${run?.output}`);
        assert.doesNotMatch(
          run?.output ?? "",
          /\.pyc|__pycache__/,
          "bytecode caches are not staged",
        );
        assert.match(run?.output ?? "", /^\.\/pkg\/mod\.py$/m, "the sources are");
      }
    },
    { tests, canary: "canary.sh" },
  );
});
