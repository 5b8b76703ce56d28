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

Deno.test("replay diverges at step 1, naming the path, after a one-character change to the system prompt", async () => {
  await requireDocker();
  await using tree = await scratchDir("replay");
  for (const path of ["deno.json", "deno.lock", "cli.ts", "mod.ts", "src", "tasks/fix-slugify"]) {
    await copyTree(join(PROJECT_ROOT, path), join(tree.path, path));
  }
  const evaluated = await verdictIn(tree.path, ["eval", "tasks/fix-slugify", "--home", ".verdict"]);
  assert.equal(evaluated.code, 0, evaluated.stderr);
  const run = /^run (\w+)/.exec(evaluated.stdout)![1];
  const same = await verdictIn(tree.path, ["replay", run, "--home", ".verdict"]);
  assert.equal(same.code, 0, same.stdout + same.stderr);
  assert.match(same.stdout, /: identical \(5 steps\)/);

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

Deno.test("replay --live re-runs the tools in a fresh container and compares their results", async () => {
  await requireDocker();
  await using home = await scratchDir("replay");
  const root = PROJECT_ROOT;
  const evaluated = await verdictIn(root, [
    "eval",
    "tasks/shell-count-errors",
    "--home",
    home.path,
  ]);
  assert.equal(evaluated.code, 0, evaluated.stderr);
  const run = /^run (\w+)/.exec(evaluated.stdout)![1];
  const live = await verdictIn(root, ["replay", run, "--live", "--home", home.path]);
  assert.equal(live.code, 0, live.stdout + live.stderr);
  assert.match(live.stdout, /identical \(5 steps\)/);
  const missing = await verdictIn(root, ["replay", "nope", "--home", home.path]);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /no session or run 'nope'/);
});
