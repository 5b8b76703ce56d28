/**
 * An installed agent whose program cannot be started (the shell answers 126 or 127) is an
 * evaluator error naming the command, never "tests failed" filed as the agent's work; a program
 * that did run and chose to exit 127 is still the agent's failure.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { Results } from "../../src/report/results.ts";
import { requireDocker } from "../_docker.ts";
import { runVerdict, scratchDir } from "../_verdict.ts";
import { minimalTask, writeFiles } from "../task/_task_fixture.ts";

Deno.test("a cmd: agent whose program is missing or not executable is an evaluator error naming it (exit 3)", async () => {
  await requireDocker();
  await using scratch = await scratchDir("agent-start");
  const task = join(scratch.path, "task");
  await writeFiles(task, minimalTask("start"));
  const files = join(scratch.path, "agent");
  await Deno.mkdir(files);
  await Deno.writeTextFile(join(files, "run.sh"), "#!/bin/sh\necho yes > answer.txt\n");
  await Deno.chmod(join(files, "run.sh"), 0o644);

  // Both programs in one sweep (a run each); the sweep exits as its worst run does.
  const broken = await runVerdict([
    "eval",
    task,
    "--agent",
    "cmd:/verdict/agent/run.sh",
    "--agent",
    "cmd:no-such-agent --go",
    "--agent-files",
    files,
    "--json",
    "--home",
    join(scratch.path, "home-broken"),
  ]);
  assert.equal(broken.code, 3, broken.stderr);
  const [notExecutable, missing] = (JSON.parse(broken.stdout) as { runs: Results[] }).runs
    .map((run) => run.trials[0]);
  assert.equal(notExecutable.bucket, "evaluator_error");
  assert.match(
    notExecutable.reason,
    /could not be executed in its container: .*\/verdict\/agent\/run\.sh: Permission denied \(exit 126, command "\/verdict\/agent\/run\.sh"\); .*chmod \+x/,
  );
  assert.equal(missing.bucket, "evaluator_error");
  assert.match(
    missing.reason,
    /no-such-agent: not found \(exit 127, command "no-such-agent --go"\)/,
  );

  // A program that ran and exited 127 of its own accord is judged on its work, as any other.
  const ranAndFailed = await runVerdict([
    "eval",
    task,
    "--agent",
    "cmd:echo gave up >&2; exit 127",
    "--json",
    "--home",
    join(scratch.path, "home-ran"),
  ]);
  assert.equal(ranAndFailed.code, 0, ranAndFailed.stderr);
  assert.equal((JSON.parse(ranAndFailed.stdout) as Results).trials[0].bucket, "agent_failure");
});
