import assert from "node:assert/strict";
import { join } from "node:path";
import { parse } from "smol-toml";
import { sha256Hex } from "../../src/core/hash.ts";
import { readTree } from "../../src/task/file_tree.ts";
import { scratchDir } from "../_verdict.ts";
import { runVerdictInProcess } from "./_in_process.ts";

/** Every entry of a folder with its mode and its bytes' hash, one line each. */
async function listing(root: string): Promise<string[]> {
  return (await readTree(root)).map((entry) =>
    entry.type === "file"
      ? `${entry.path} ${entry.mode.toString(8)} ${sha256Hex(entry.data)}`
      : entry.type === "dir"
      ? `${entry.path}/ ${entry.mode.toString(8)}`
      : `${entry.path} -> ${entry.target}`
  );
}

Deno.test("tasks export --format harbor writes each task's folder, the same bytes every time", async () => {
  await using scratch = await scratchDir("tasks-export");
  const out = join(scratch.path, "harbor");
  const args = ["tasks", "export", "--format", "harbor", "--out", out];
  const tasks = ["tasks/fix-slugify", "tasks/fix-parser-canary"];

  const first = await runVerdictInProcess([...args, ...tasks]);
  assert.equal(first.code, 0, first.stderr);
  assert.match(first.stdout, /2 tasks exported as harbor tasks/);
  assert.match(first.stderr, /fix-parser-canary: not exported: checks \(no_new_skips\); canary/);
  assert.match(first.stderr, /fix-slugify: not exported: checks \(paths_exist\)/);
  const toml = parse(await Deno.readTextFile(join(out, "fix-slugify", "task.toml")));
  assert.equal(toml.version, "1.0");
  assert.deepEqual({ ...toml.verifier as object }, { timeout_sec: 120 });
  const files = await listing(join(out, "fix-slugify"));
  for (
    const path of [
      "environment/Dockerfile",
      "instruction.md",
      "solution/solve.sh",
      "task.toml",
      "tests/test.sh",
      "tests/verdict/test.sh",
    ]
  ) assert(files.some((line) => line.startsWith(`${path} `)), `${path} is missing`);

  // An existing, non-empty task folder is refused, and nothing is written.
  await Deno.writeTextFile(join(out, "fix-slugify", "mine.txt"), "keep me\n");
  const again = await runVerdictInProcess([...args, ...tasks]);
  assert.equal(again.code, 2);
  assert.match(again.stderr, /fix-parser-canary, \S+fix-slugify exist and are not empty.*--force/);
  assert.equal(await Deno.readTextFile(join(out, "fix-slugify", "mine.txt")), "keep me\n");

  // --force replaces it, with the same bytes and modes as the first time.
  const forced = await runVerdictInProcess([...args, "--force", ...tasks]);
  assert.equal(forced.code, 0, forced.stderr);
  assert.deepEqual(await listing(join(out, "fix-slugify")), files);
});

Deno.test("tasks export refuses a missing or unknown --format, a missing --out and a file as --out", async () => {
  await using scratch = await scratchDir("tasks-export");
  const out = ["--out", join(scratch.path, "x")];
  const noFormat = await runVerdictInProcess(["tasks", "export", ...out, "tasks/fix-slugify"]);
  assert.equal(noFormat.code, 2);
  assert.match(noFormat.stderr, /--format is required; write --format harbor/);
  const unknown = await runVerdictInProcess([
    "tasks",
    "export",
    "--format",
    "inspect",
    ...out,
    "tasks/fix-slugify",
  ]);
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /unknown --format 'inspect'/);
  const noOut = await runVerdictInProcess([
    "tasks",
    "export",
    "--format",
    "harbor",
    "tasks/fix-slugify",
  ]);
  assert.equal(noOut.code, 2);
  assert.match(noOut.stderr, /--out DIR is required/);
  const file = join(scratch.path, "a-file");
  await Deno.writeTextFile(file, "mine\n");
  const fileOut = await runVerdictInProcess(
    ["tasks", "export", "--format", "harbor", "--out", file, "--force", "tasks/fix-slugify"],
  );
  assert.equal(fileOut.code, 2, fileOut.stderr);
  assert.match(fileOut.stderr, /--out \S+a-file is a file, not a folder.*--force replaces task/);
  assert.equal(await Deno.readTextFile(file), "mine\n");
  const help = await runVerdictInProcess(["--help"]);
  assert.match(help.stdout, /tasks export \[PATH\.\.\.\]/);
});
