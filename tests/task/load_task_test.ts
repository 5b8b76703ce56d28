import assert from "node:assert/strict";
import { join } from "node:path";
import { InputError } from "../../src/core/errors.ts";
import { loadSuite } from "../../src/task/load_suite.ts";
import { parseManifest } from "../../src/task/load_task.ts";
import { runVerdict, scratchDir } from "../_verdict.ts";
import { minimalTask, writeFiles } from "./_task_fixture.ts";

/** Writes a task whose files are the minimal task's with `changes` applied (null deletes). */
async function brokenTask(
  root: string,
  id: string,
  changes: Record<string, string | null>,
): Promise<string> {
  const files: Record<string, string> = { ...minimalTask(id) };
  for (const [path, text] of Object.entries(changes)) {
    if (text === null) delete files[path];
    else files[path] = text;
  }
  const dir = join(root, id);
  await writeFiles(dir, files);
  return dir;
}

const manifest = (extra: string) =>
  `id: t\ncategory: shell\nimage: verdict/busybox\nsuccess: { script: test.sh }\n${extra}`;

function problemsOf(text: string): string {
  try {
    parseManifest(text, "tasks/t/task.yaml");
  } catch (error) {
    assert.ok(error instanceof InputError);
    assert.equal(error.exitCode, 2);
    return error.message;
  }
  throw new Error("the manifest was accepted");
}

Deno.test("a minimal manifest gets the defaults of SPEC section 3", () => {
  const parsed = parseManifest(manifest(""), "task.yaml");
  assert.equal(parsed.workdir, "/workspace");
  assert.equal(parsed.network, "none");
  assert.deepEqual(parsed.limits, {
    max_steps: 30,
    timeout_s: 600,
    max_total_tokens: 200000,
    max_cost_usd: 0.5,
  });
  assert.deepEqual(parsed.context, {
    max_tokens: 16000,
    reserve_output_tokens: 2000,
    strategy: "truncate",
  });
  assert.equal(parsed.policy, "default");
  assert.equal(parsed.success.timeout_s, 120);
  assert.deepEqual(parsed.checks, []);
  assert.deepEqual(parsed.requires, {});
});

Deno.test("an unknown key is an error at every level, with the nearest known key", () => {
  assert.match(
    problemsOf(manifest("timeout: 5\n")),
    /tasks\/t\/task\.yaml: timeout: unknown key\. Fix: remove it; allowed here: id, category/,
  );
  assert.match(
    problemsOf(manifest("limits: { max_step: 5 }\n")),
    /limits\.max_step: unknown key\. Fix: did you mean 'max_steps'\?/,
  );
  assert.match(
    problemsOf(manifest("context: { strategy: truncate, max_token: 9 }\n")),
    /context\.max_token: unknown key\. Fix: did you mean 'max_tokens'\?/,
  );
  assert.match(
    problemsOf(manifest("checks:\n  - file_contains: { path: a, txt: b }\n")),
    /checks\[0\]\.file_contains\.txt: unknown key\. Fix: did you mean 'text'\?/,
  );
  assert.match(
    problemsOf(manifest("checks:\n  - files_unchange: [a]\n")),
    /checks\[0\]\.files_unchange: unknown check\. Fix: did you mean 'files_unchanged'\?/,
  );
  assert.match(problemsOf(manifest("success2: {}\n")), /success2: unknown key/);
  assert.match(
    problemsOf(
      "id: t\ncategory: shell\nimage: verdict/busybox\nsuccess: { script: test.sh, canry: c.sh }\n",
    ),
    /success\.canry: unknown key\. Fix: did you mean 'canary'\?/,
  );
});

Deno.test("requires accepts only the closed set of counters", () => {
  assert.match(
    problemsOf(manifest("requires: { min_coffee: 1 }\n")),
    /requires\.min_coffee: unknown key\. Fix: remove it; allowed here: min_steps, max_steps/,
  );
  assert.match(
    problemsOf(manifest("requires: { min_compaction: 1 }\n")),
    /did you mean 'min_compactions'\?/,
  );
  const parsed = parseManifest(
    manifest("requires: { min_denied_calls: 1, resumed: true }\n"),
    "task.yaml",
  );
  assert.deepEqual(parsed.requires, { min_denied_calls: 1, resumed: true });
});

Deno.test("bad values name the field and the fix", () => {
  assert.match(
    problemsOf(manifest("").replace("id: t", "id: Fix_Slug")),
    /: id: must be lowercase letters, digits and dashes/,
  );
  assert.match(
    problemsOf(manifest("limits: { max_steps: many }\n")),
    /limits\.max_steps: expected a number, got string "many"\. Fix: write a number here/,
  );
  assert.match(
    problemsOf(manifest("network: host\n")),
    /network: string "host" is not allowed\. Fix: use one of: none, bridge/,
  );
  assert.match(
    problemsOf("category: x\nimage: y\nsuccess: { script: t.sh }\n"),
    /: id: is missing\. Fix: add it/,
  );
  assert.match(
    problemsOf(manifest("").replace("script: test.sh", "script: ../escape.sh")),
    /success\.script: must be a relative path without '\.\.'/,
  );
});

Deno.test("invalid YAML and duplicate keys point at the line", () => {
  assert.match(
    problemsOf("id: a\nid: b\n"),
    /task\.yaml:2:1: not valid YAML: .*(Map keys must be unique|duplicate)/i,
  );
  assert.match(problemsOf("id: [unclosed\n"), /not valid YAML/);
});

Deno.test("missing files and duplicate ids are refused by the CLI with exit 2, naming file and field", async () => {
  await using dir = await scratchDir("tasks");
  const cases: [string, Record<string, string | null>, RegExp][] = [
    [
      "no-instruction",
      { "instruction.md": null },
      /no-instruction\/instruction\.md: file is missing\. Fix: write what the agent is told/,
    ],
    [
      "no-script",
      { "tests/test.sh": null, "tests/other.sh": "#!/bin/sh\n" },
      /no-script\/task\.yaml: success\.script: names tests\/test\.sh, which does not exist/,
    ],
    [
      "bad-id",
      { "task.yaml": minimalTask("Bad_Id")["task.yaml"] },
      /bad-id\/task\.yaml: id: must be lowercase letters/,
    ],
    ["no-workspace", { "workspace/README.md": null }, /no-workspace\/workspace: folder is missing/],
    ["bad-requires", {
      "task.yaml": minimalTask("bad-requires")["task.yaml"] + "requires: { min_luck: 3 }\n",
    }, /bad-requires\/task\.yaml: requires\.min_luck: unknown key/],
  ];
  for (const [id, changes, expected] of cases) {
    const root = join(dir.path, id);
    await brokenTask(root, id, changes);
    const result = await runVerdict(["tasks", "list", root]);
    assert.equal(result.code, 2, `${id}: ${result.stderr}`);
    assert.match(result.stderr, expected, id);
  }
  const duplicates = join(dir.path, "duplicates");
  await writeFiles(join(duplicates, "one"), minimalTask("same"));
  await writeFiles(join(duplicates, "two"), minimalTask("same"));
  const result = await runVerdict(["tasks", "list", duplicates]);
  assert.equal(result.code, 2);
  assert.match(result.stderr, /two\/task\.yaml: id: 'same' is already the id of .*one\/task\.yaml/);
  const evaluated = await runVerdict([
    "eval",
    "--agent",
    "oracle",
    duplicates,
    "--home",
    join(dir.path, "home"),
  ]);
  assert.equal(evaluated.code, 2, "eval refuses a bad suite before recording anything");
  await assert.rejects(Deno.stat(join(dir.path, "home", "verdict.db")));
});

Deno.test("a suite is every task folder under a path, with a digest that follows every byte", async () => {
  await using dir = await scratchDir("tasks");
  await writeFiles(join(dir.path, "suite", "b-task"), minimalTask("b-task"));
  await writeFiles(join(dir.path, "suite", "a-task"), minimalTask("a-task"));
  const suite = await loadSuite([join(dir.path, "suite")]);
  assert.deepEqual(suite.tasks.map((task) => task.id), ["a-task", "b-task"]);
  await Deno.writeTextFile(
    join(dir.path, "suite", "b-task", "tests", "test.sh"),
    "#!/bin/sh\nexit 1\n",
  );
  assert.notEqual((await loadSuite([join(dir.path, "suite")])).digest, suite.digest);
  const single = await loadSuite([join(dir.path, "suite", "a-task")]);
  assert.deepEqual(single.tasks.map((task) => task.id), ["a-task"]);
  const listed = await runVerdict(["tasks", "list", join(dir.path, "nowhere")]);
  assert.equal(listed.code, 2);
  assert.match(listed.stderr, /nowhere does not exist/);
});
