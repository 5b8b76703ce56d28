/**
 * What grading saw reaches the user where they look: `verdict show` and `report.md` carry a failed
 * trial's checks, the success script's run and the end of its output (in a Markdown fence its own
 * backticks cannot close); a passed canary's output is shown, a failed one's is not.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { MemorySandbox } from "../../src/engine/memory_sandbox.ts";
import { runEval } from "../../src/eval/run/run_eval.ts";
import { scratchDir } from "../_verdict.ts";
import { runVerdictInProcess } from "../cli/_in_process.ts";

const OUTPUT = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`).join("\n") +
  "\nFAILED tests/test_slug.py::test_dash - assert 'a b' == 'a-b'\n```\n";

Deno.test("show and report.md carry the grader's output, bounded, for a failed trial", async () => {
  await using dir = await scratchDir("grading-output");
  const sandbox = new MemorySandbox({
    exec: ({ script }) =>
      script.includes("tests/test.sh") ? { exitCode: 1, stdout: OUTPUT } : { exitCode: 0 },
  });
  const { run, results } = await runEval(
    { paths: ["tasks/fix-slugify"], agent: "nop", home: dir.path },
    { sandbox },
  );
  const shown = await runVerdictInProcess(
    ["show", results.trials[0].session, "--home", dir.path],
  );
  assert.equal(shown.code, 0, shown.stderr);
  const grading = shown.stdout.slice(shown.stdout.indexOf("\ngrading:\n"));
  const expected = [
    "\ngrading:\n  held  check paths_exist: 1 path(s) exist\n",
    "  success script test.sh: exit code 1\n    ... (12 earlier lines)\n    line 13\n",
    "    FAILED tests/test_slug.py::test_dash - assert 'a b' == 'a-b'\n",
  ];
  for (const text of expected) assert.ok(grading.includes(text), grading);
  assert.doesNotMatch(grading, /line 12\n/);

  const markdown = await Deno.readTextFile(join(dir.path, "runs", run.id, "report.md"));
  const section = markdown.slice(markdown.indexOf("## What grading saw"));
  assert.match(section, /### fix-slugify#0\n\ntests failed/);
  assert.match(
    section,
    /success script `test\.sh`: exit code 1\n\n````\n\.\.\. \(17 earlier lines\)/,
  );
  assert.match(section, /FAILED tests\/test_slug\.py::test_dash.*\n```\n````\n/);
});

Deno.test("a report.md written before it showed what grading saw still verifies; an edit to that section does not", async () => {
  await using dir = await scratchDir("grading-older-report");
  const sandbox = new MemorySandbox({
    exec: ({ script }) =>
      script.includes("tests/test.sh") ? { exitCode: 1, stdout: OUTPUT } : { exitCode: 0 },
  });
  const { run } = await runEval(
    { paths: ["tasks/fix-slugify"], agent: "nop", home: dir.path },
    { sandbox },
  );
  const report = join(dir.path, "runs", run.id, "report.md");
  const text = await Deno.readTextFile(report);
  const verify = () => runVerdictInProcess(["verify", run.id, "--home", dir.path]);
  await Deno.writeTextFile(report, text.slice(0, text.indexOf("\n## What grading saw")));
  assert.equal((await verify()).code, 0, "the older report verifies");
  await Deno.writeTextFile(report, text.replace("exit code 1", "exit code 0"));
  const edited = await verify();
  assert.equal(edited.code, 1, edited.stdout);
  assert.match(edited.stdout, /report\.md is not what the record says/);
});
