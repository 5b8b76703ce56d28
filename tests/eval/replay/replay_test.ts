import assert from "node:assert/strict";
import { join } from "node:path";
import { requireDocker } from "../../_docker.ts";
import { copyTree, PROJECT_ROOT, scratchDir } from "../../_verdict.ts";

/** Runs the CLI of a copy of the project (the permission set reaches only that copy). */
async function verdictIn(
  root: string,
  args: string[],
): Promise<{ code: number; stdout: string; stderr: string }> {
  const output = await new Deno.Command("deno", {
    args: ["run", "-P=verdict", "--quiet", join(root, "cli.ts"), ...args],
    cwd: root,
    env: { NO_COLOR: "1" },
  }).output();
  const decoder = new TextDecoder();
  return {
    code: output.code,
    stdout: decoder.decode(output.stdout),
    stderr: decoder.decode(output.stderr),
  };
}

// One recorded run, in a copy of the project whose system prompt the test then changes.
Deno.test("replay is identical; --live re-runs the tools in a fresh container and compares their results; after a one-character change to the system prompt it diverges at step 1, naming the path", async () => {
  await requireDocker();
  await using tree = await scratchDir("replay");
  for (
    const path of ["deno.json", "deno.lock", "cli.ts", "mod.ts", "src", "tasks/shell-count-errors"]
  ) {
    await copyTree(join(PROJECT_ROOT, path), join(tree.path, path));
  }
  const evaluated = await verdictIn(tree.path, [
    "eval",
    "tasks/shell-count-errors",
    "--home",
    ".verdict",
  ]);
  assert.equal(evaluated.code, 0, evaluated.stderr);
  const run = /^run (\w+)/.exec(evaluated.stdout)![1];
  const same = await verdictIn(tree.path, ["replay", run, "--home", ".verdict"]);
  assert.equal(same.code, 0, same.stdout + same.stderr);
  assert.match(same.stdout, /: identical \(5 steps\)/);
  const live = await verdictIn(tree.path, ["replay", run, "--live", "--home", ".verdict"]);
  assert.equal(live.code, 0, live.stdout + live.stderr);
  assert.match(live.stdout, /identical \(5 steps\)/);
  const missing = await verdictIn(tree.path, ["replay", "nope", "--home", ".verdict"]);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /no session or run 'nope'/);

  const promptFile = join(tree.path, "src/agent/system_prompt.ts");
  const prompt = await Deno.readTextFile(promptFile);
  await Deno.writeTextFile(
    promptFile,
    prompt.replace("You are a software engineer", "You are a software engineeR"),
  );
  const changed = await verdictIn(tree.path, ["replay", run, "--home", ".verdict"]);
  assert.equal(changed.code, 1, changed.stdout + changed.stderr);
  assert.match(
    changed.stdout,
    /diverged at step 1: the request of step 1 differs from the recorded one/,
  );
  assert.match(
    changed.stdout,
    /at request\.system\n {2}expected: "You are a software engineer .*\(character 27\)\n {2}actual: {3}"You are a software engineeR/,
  );
  assert.match(
    changed.stdout,
    /replay of run \w+: diverged \(0 identical, 1 diverged, 0 skipped\)/,
  );
});
