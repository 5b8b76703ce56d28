import assert from "node:assert/strict";
import { join } from "node:path";
import { InputError } from "../../src/core/errors.ts";
import { loadSuite } from "../../src/task/load_suite.ts";
import { parseManifest } from "../../src/task/load_task.ts";
import { requireDocker } from "../_docker.ts";
import { runVerdict, scratchDir } from "../_verdict.ts";
import { runVerdictInProcess } from "../cli/_in_process.ts";
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
    const result = await runVerdictInProcess(["tasks", "list", root]);
    assert.equal(result.code, 2, `${id}: ${result.stderr}`);
    assert.match(result.stderr, expected, id);
  }
  const duplicates = join(dir.path, "duplicates");
  await writeFiles(join(duplicates, "one"), minimalTask("same"));
  await writeFiles(join(duplicates, "two"), minimalTask("same"));
  const result = await runVerdictInProcess(["tasks", "list", duplicates]);
  assert.equal(result.code, 2);
  assert.match(result.stderr, /two\/task\.yaml: id: 'same' is already the id of .*one\/task\.yaml/);
  const evaluated = await runVerdictInProcess([
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
  const listed = await runVerdictInProcess(["tasks", "list", join(dir.path, "nowhere")]);
  assert.equal(listed.code, 2);
  assert.match(listed.stderr, /nowhere does not exist/);
});

Deno.test("an image must be a Docker image reference, never something docker reads as a flag", () => {
  for (const image of ["--help", "-v", "verdict/busybox --privileged", "Verdict/Busybox", ""]) {
    assert.match(
      problemsOf(manifest("").replace("image: verdict/busybox", `image: "${image}"`)),
      /task\.yaml: image: (is not a Docker image reference\. Fix: name a local image as NAME\[:TAG\]|must not be empty)/,
      image,
    );
  }
  for (
    const image of [
      "verdict/python:3.11",
      "localhost:5000/team/image:v1",
      `debian@sha256:${"a".repeat(64)}`,
      "b".repeat(64),
    ]
  ) {
    const text = manifest("").replace("image: verdict/busybox", `image: "${image}"`);
    assert.equal(parseManifest(text, "task.yaml").image, image);
  }
});

Deno.test("a timeout too long for a timer is refused, not turned into an instant timeout", () => {
  assert.match(
    problemsOf(manifest("limits: { timeout_s: 1e12 }\n")),
    /limits\.timeout_s: is longer than 86400 seconds \(one day\), the longest timeout a task may set\. Fix: use at most 86400/,
  );
  assert.match(
    problemsOf(manifest("").replace("script: test.sh", "script: test.sh, timeout_s: 1e400")),
    /success\.timeout_s: expected a number, got a number too large to represent \(infinity\)/,
  );
  assert.match(
    problemsOf(manifest("limits: { timeout_s: 0 }\n")),
    /limits\.timeout_s: must be above 0, got number 0\. Fix: use a value above 0/,
  );
  assert.equal(
    parseManifest(manifest("limits: { timeout_s: 86400 }\n"), "t").limits.timeout_s,
    86400,
  );
});

Deno.test("check globs and patterns that cannot compile are refused at load, naming the field", () => {
  assert.match(
    problemsOf(manifest("checks:\n  - changed_paths_within: ['src/**', '[abc']\n")),
    /checks\[0\]\.changed_paths_within\[1\]: '\[abc' is not a valid glob: the '\[' at character 1 is never closed/,
  );
  assert.match(
    problemsOf(manifest("checks:\n  - no_new_skips: { paths: ['tests/*.{py,js}'] }\n")),
    /checks\[0\]\.no_new_skips\.paths\[0\]: .* braces are not glob syntax here/,
  );
  assert.match(
    problemsOf(manifest("checks:\n  - file_contains: { path: a.py, pattern: '(unclosed' }\n")),
    /checks\[0\]\.file_contains\.pattern: not a valid regular expression: .*\. Fix: correct the JavaScript regular expression/,
  );
});

Deno.test("a task file that is a symlink out of the task folder is refused up front, exit 2", async () => {
  await using dir = await scratchDir("links");
  const outside = join(dir.path, "outside.txt");
  await Deno.writeTextFile(outside, "HOST SECRET\n");
  const cases: [string, (root: string) => Promise<void>, RegExp][] = [
    [
      "link-instruction",
      (root) => replaceWithLink(join(root, "instruction.md"), outside),
      /link-instruction\/instruction\.md: is a symlink that leads to .*outside\.txt, outside the task folder\. Fix: copy the file into the task folder/,
    ],
    [
      "link-script",
      (root) => replaceWithLink(join(root, "tests", "test.sh"), "/bin/sh"),
      /link-script\/task\.yaml: success\.script: names tests\/test\.sh, which is a symlink that leads to \/bin\/sh, outside tests\/\. Fix: copy it into tests\//,
    ],
    [
      "link-doc",
      async (root) => {
        await Deno.writeTextFile(
          join(root, "task.yaml"),
          minimalTask("link-doc")["task.yaml"] + "docs: [guide.md]\n",
        );
        await Deno.symlink("../outside.txt", join(root, "guide.md"));
      },
      /link-doc\/task\.yaml: docs\[0\]: names guide\.md, which is a symlink that leads to .*outside\.txt, outside the task folder/,
    ],
  ];
  for (const [id, link, expected] of cases) {
    const root = await brokenTask(dir.path, id, {});
    await link(root);
    // A subprocess: what a link resolves to depends on what the permission set lets it read.
    const result = await runVerdict(["tasks", "list", root]);
    assert.equal(result.code, 2, `${id}: ${result.stderr}`);
    assert.match(result.stderr, expected, id);
    assert.doesNotMatch(result.stderr, /HOST SECRET/);
  }
  const inside = await brokenTask(dir.path, "link-inside", {});
  await Deno.rename(join(inside, "instruction.md"), join(inside, "real.md"));
  await Deno.symlink("real.md", join(inside, "instruction.md"));
  const listed = await runVerdictInProcess(["tasks", "list", inside]);
  assert.equal(listed.code, 0, "a link that stays inside the task folder is fine");
});

Deno.test("a workspace file whose name is not UTF-8 is exit 2 naming it, not an internal error", async () => {
  await requireDocker();
  await using dir = await scratchDir("names");
  const root = await brokenTask(dir.path, "bad-name", {});
  // Deno takes names as UTF-8 strings, so a shell in a throwaway container makes the name.
  const made = await new Deno.Command("docker", {
    args: [
      ...["run", "--rm", "--network", "none", "-v", `${join(root, "workspace")}:/w`],
      ...["verdict/busybox", "sh", "-c", `touch "/w/$(printf 'data-\\377')"`],
    ],
  }).output();
  assert.equal(made.code, 0, new TextDecoder().decode(made.stderr));
  for (const command of [["tasks", "list"], ["eval", "--home", join(dir.path, "home")]]) {
    const result = await runVerdictInProcess([...command, root]);
    assert.equal(result.code, 2, `${command.join(" ")}: ${result.stderr}`);
    assert.match(
      result.stderr,
      /bad-name\/workspace\/data-\uFFFD: the file name is not valid UTF-8 .*\. Fix: rename it with a UTF-8 name/,
    );
    assert.doesNotMatch(result.stderr, /internal error/);
  }
});

async function replaceWithLink(path: string, target: string): Promise<void> {
  await Deno.remove(path);
  await Deno.symlink(target, path);
}
