import assert from "node:assert/strict";
import { parse } from "smol-toml";
import { GRADER_ENV, TESTS_PATH } from "../../src/grading/grade.ts";
import {
  HARBOR_BUILD_TIMEOUT_SEC,
  type HarborExport,
  readHarborExport,
} from "../../src/task/export_harbor.ts";
import { readTree, type TreeEntry } from "../../src/task/file_tree.ts";
import { loadTask } from "../../src/task/load_task.ts";
import type { Task } from "../../src/task/task.ts";
import { scratchDir } from "../_verdict.ts";
import { minimalTask, writeFiles } from "./_task_fixture.ts";

const GRADING = { testsPath: TESTS_PATH, env: GRADER_ENV };

/** The TOML as plain JSON values (smol-toml's tables have no prototype). */
function tomlOf(text: string): Record<string, unknown> {
  return JSON.parse(JSON.stringify(parse(text)));
}

function text(exported: HarborExport, path: string): string {
  const entry = exported.entries.find((candidate) => candidate.path === path);
  assert(entry?.type === "file", `${path} is not among the exported files`);
  return new TextDecoder().decode(entry.data);
}

function mode(exported: HarborExport, path: string): number {
  const entry = exported.entries.find((candidate) => candidate.path === path);
  assert(entry !== undefined && entry.type !== "symlink", `${path} is not exported`);
  return entry.mode;
}

function paths(entries: TreeEntry[], under: string): string[] {
  return entries.filter((entry) => entry.path.startsWith(under)).map((entry) =>
    entry.path.slice(under.length)
  );
}

Deno.test("fix-slugify: task.toml, Dockerfile, tests under tests/verdict/ and both scripts", async () => {
  const task = await loadTask("tasks/fix-slugify");
  const exported = await readHarborExport(task, GRADING);
  assert.equal(exported.id, "fix-slugify");

  const toml = tomlOf(text(exported, "task.toml"));
  assert.deepEqual(toml, {
    version: "1.0",
    metadata: {
      category: "bugfix",
      verdict_id: "fix-slugify",
      verdict_not_exported: [
        "checks (paths_exist)",
        "limits (max_steps 30, max_total_tokens 200000, max_cost_usd 0.5)",
        "context (max_tokens 16000, reserve_output_tokens 2000, strategy truncate)",
      ],
    },
    verifier: { timeout_sec: 120 },
    agent: { timeout_sec: 600 },
    environment: { build_timeout_sec: HARBOR_BUILD_TIMEOUT_SEC },
  });
  assert.equal(text(exported, "instruction.md"), task.instruction);
  assert.deepEqual(text(exported, "environment/Dockerfile").split("\n").slice(1), [
    "FROM verdict/python:3.11",
    "WORKDIR /workspace",
    'COPY ["workspace/", "/workspace/"]',
    "",
  ]);

  // Every file of the task's folders is there, under the folder the scripts expect.
  const workspace = await readTree("tasks/fix-slugify/workspace");
  assert.deepEqual(
    paths(exported.entries, "environment/workspace/"),
    workspace.map((entry) => entry.path),
  );
  assert.deepEqual(paths(exported.entries, "tests/verdict/"), [
    "conftest.py",
    "test.sh",
    "test_hidden_slugify.py",
  ]);
  assert.deepEqual(paths(exported.entries, "solution/verdict/"), [
    "files",
    "files/textkit",
    "files/textkit/normalize.py",
    "files/textkit/slug.py",
  ]);
  assert.equal(mode(exported, "tests/verdict/test.sh") & 0o111, 0o111);
  assert.equal(mode(exported, "tests/test.sh"), 0o755);
  assert.equal(mode(exported, "solution/solve.sh"), 0o755);

  const test = text(exported, "tests/test.sh");
  assert.match(test, /ln -s \/tests\/verdict '\/verdict\/tests'/);
  assert.match(test, /cd '\/workspace'/);
  assert.match(test, /PYTHONSAFEPATH='1' .*'\/verdict\/tests\/test\.sh'; then/);
  assert.match(test, /echo 1 > \/logs\/verifier\/reward\.txt/);
  assert.match(test, /echo 0 > \/logs\/verifier\/reward\.txt/);
  const solve = text(exported, "solution/solve.sh");
  assert.match(solve, /cp -a "\$solution\/files\/\." \./);
  assert.match(solve, /sh "\$solution\/solve\.sh"/);
});

Deno.test("the export is sorted and the same bytes every time", async () => {
  const task = await loadTask("tasks/fix-slugify");
  const first = await readHarborExport(task, GRADING);
  const second = await readHarborExport(task, GRADING);
  assert.deepEqual(second, first);
  const order = first.entries.map((entry) => entry.path);
  assert.deepEqual(order, [...order].sort());
  assert.equal(new Set(order).size, order.length);
});

Deno.test("a canary and checks are listed as not exported and recorded in [metadata]", async () => {
  const exported = await readHarborExport(await loadTask("tasks/fix-parser-canary"), GRADING);
  assert.deepEqual(exported.notExported.slice(0, 2), [
    "checks (no_new_skips)",
    "canary (canary.sh)",
  ]);
  const toml = tomlOf(text(exported, "task.toml")) as { metadata: Record<string, unknown> };
  assert.deepEqual(toml.metadata.verdict_not_exported, exported.notExported);
  // The canary script itself still travels with the tests, for whoever wants to run it.
  assert(paths(exported.entries, "tests/verdict/").includes("canary.sh"));
  assert.match(text(exported, "tests/test.sh"), /'\/verdict\/tests\/test\.sh'/);
});

Deno.test("requires, a policy, docs and network: bridge are listed; odd text stays valid TOML", async () => {
  await using scratch = await scratchDir("export-harbor");
  const files = minimalTask("odd-task");
  files["task.yaml"] = [
    "id: odd-task",
    'category: "say \\"hi\\"\\n[agent]\\ntimeout_sec = 1"',
    "image: verdict/busybox",
    "workdir: /srv/my app",
    "network: bridge",
    "policy: policy.yaml",
    "docs: [docs/guide.md]",
    "success: { script: check.sh, timeout_s: 30 }",
    "requires: { min_tool_calls: 2 }",
    "",
  ].join("\n");
  files["policy.yaml"] = "rules: []\n";
  files["docs/guide.md"] = "A guide.\n";
  files["tests/check.sh"] = files["tests/test.sh"];
  delete files["tests/test.sh"];
  delete files["solution/files/answer.txt"];
  await writeFiles(scratch.path, files);
  let task: Task;
  try {
    task = await loadTask(scratch.path);
  } catch (error) {
    throw new Error(`the fixture does not load: ${(error as Error).message}`);
  }
  const exported = await readHarborExport(task, GRADING);
  assert.deepEqual(exported.notExported.slice(0, 4), [
    "requires (min_tool_calls 2)",
    "policy (policy.yaml)",
    "docs (docs/guide.md)",
    "network (bridge)",
  ]);
  const toml = tomlOf(text(exported, "task.toml")) as {
    metadata: { category: string };
    agent: { timeout_sec: number };
  };
  assert.equal(toml.metadata.category, 'say "hi"\n[agent]\ntimeout_sec = 1');
  assert.equal(toml.agent.timeout_sec, 600);
  assert.match(text(exported, "environment/Dockerfile"), /^WORKDIR "\/srv\/my app"$/m);
  assert.match(text(exported, "tests/test.sh"), /cd '\/srv\/my app'/);
  assert.match(text(exported, "tests/test.sh"), /'\/verdict\/tests\/check\.sh'; then/);
  // No solution/ folder in the task: none in the export.
  assert.deepEqual(paths(exported.entries, "solution"), []);
});
