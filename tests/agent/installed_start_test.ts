/**
 * An installed agent whose program cannot be started (the shell answers 126 or 127) is an
 * evaluator error naming the command, never "tests failed" filed as the agent's work; a program
 * that did run and chose to exit 127 is still the agent's failure.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { requireDocker } from "../_docker.ts";
import { runVerdict, scratchDir } from "../_verdict.ts";
import { minimalTask, writeFiles } from "../task/_task_fixture.ts";

async function evalCmd(
  scratch: string,
  agent: string,
  agentFiles?: string,
): Promise<{ code: number; trial: { bucket: string; reason: string } }> {
  const evaluated = await runVerdict([
    "eval",
    join(scratch, "task"),
    "--agent",
    agent,
    ...(agentFiles === undefined ? [] : ["--agent-files", agentFiles]),
    "--json",
    "--home",
    join(scratch, `home-${agent.length}`),
  ]);
  assert.notEqual(evaluated.stdout, "", evaluated.stderr);
  return { code: evaluated.code, trial: JSON.parse(evaluated.stdout).trials[0] };
}

Deno.test("a cmd: agent whose program is missing or not executable is an evaluator error naming it (exit 3)", async () => {
  await requireDocker();
  await using scratch = await scratchDir("agent-start");
  await writeFiles(join(scratch.path, "task"), minimalTask("start"));
  const files = join(scratch.path, "agent");
  await Deno.mkdir(files);
  await Deno.writeTextFile(join(files, "run.sh"), "#!/bin/sh\necho yes > answer.txt\n");
  await Deno.chmod(join(files, "run.sh"), 0o644);

  const notExecutable = await evalCmd(scratch.path, "cmd:/verdict/agent/run.sh", files);
  assert.equal(notExecutable.code, 3);
  assert.equal(notExecutable.trial.bucket, "evaluator_error");
  assert.match(
    notExecutable.trial.reason,
    /could not be executed in its container: .*\/verdict\/agent\/run\.sh: Permission denied \(exit 126, command "\/verdict\/agent\/run\.sh"\); .*chmod \+x/,
  );

  const missing = await evalCmd(scratch.path, "cmd:no-such-agent --go");
  assert.equal(missing.code, 3);
  assert.equal(missing.trial.bucket, "evaluator_error");
  assert.match(
    missing.trial.reason,
    /no-such-agent: not found \(exit 127, command "no-such-agent --go"\)/,
  );

  // A program that ran and exited 127 of its own accord is judged on its work, as any other.
  const ranAndFailed = await evalCmd(scratch.path, "cmd:echo gave up >&2; exit 127");
  assert.equal(ranAndFailed.code, 0);
  assert.equal(ranAndFailed.trial.bucket, "agent_failure");
});
