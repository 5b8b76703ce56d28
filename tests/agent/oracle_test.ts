import assert from "node:assert/strict";
import { join } from "node:path";
import { requireDocker } from "../_docker.ts";
import { runVerdict, scratchDir } from "../_verdict.ts";
import { writeFiles } from "../task/_task_fixture.ts";

// A suite extracted as root with umask 002: its folders are 0775, as the staged workspace keeps.
const GROUP_WRITABLE_TASK: Record<string, string> = {
  "task.yaml": [
    "id: group-writable",
    "category: shell",
    "image: verdict/busybox",
    "success: { script: test.sh, timeout_s: 30, expect_tests: 0 }",
    'checks: [{ changed_paths_within: ["src/lib/**", "docs/**"] }]',
    "",
  ].join("\n"),
  "instruction.md": "Write yes into src/lib/answer.txt and add docs/notes.md.\n",
  "workspace/src/lib/README.md": "A library.\n",
  "tests/test.sh": "#!/bin/sh\ngrep -qx yes src/lib/answer.txt && test -f docs/notes.md\n",
  "solution/files/src/lib/answer.txt": "yes\n",
  "solution/files/docs/notes.md": "notes\n",
};

Deno.test("the oracle leaves the mode of folders the workspace has: a 0775 workspace passes tasks check with changed_paths_within", async () => {
  await requireDocker();
  await using scratch = await scratchDir("oracle-modes");
  const task = join(scratch.path, "group-writable");
  await writeFiles(task, GROUP_WRITABLE_TASK);
  for (const folder of ["workspace", "workspace/src", "workspace/src/lib"]) {
    await Deno.chmod(join(task, folder), 0o775);
  }
  for (const folder of ["solution/files", "solution/files/src", "solution/files/src/lib"]) {
    await Deno.chmod(join(task, folder), 0o755);
  }
  const checked = await runVerdict(["tasks", "check", task, "--home", join(scratch.path, "home")]);
  assert.equal(checked.code, 0, `${checked.stdout}${checked.stderr}`);
  assert.match(checked.stdout, /1 of 1 tasks check out/);

  // The new folder docs/ comes from the solution with its own mode, and the sealed end state
  // shows only the two files and that folder as changed.
  const oracle = await runVerdict([
    "eval",
    task,
    "--agent",
    "oracle",
    "--json",
    "--home",
    join(scratch.path, "home2"),
  ]);
  assert.equal(oracle.code, 0, oracle.stderr);
  const [trial] = JSON.parse(oracle.stdout).trials;
  assert.equal(trial.verdict, "pass", trial.reason);
  assert.equal(trial.changed_paths, 3);
});
