import assert from "node:assert/strict";
import { scratchDir } from "../_verdict.ts";
import { runVerdictInProcess } from "./_in_process.ts";

const TASK = "tasks/shell-count-errors";

Deno.test("--engine values that name no engine are exit 2 naming the value; --concurrency beside it too", async () => {
  await using dir = await scratchDir("engine-flags");
  const cases: [string[], RegExp][] = [
    [["--engine", ""], /--engine : write NAME or NAME=SLOTS/],
    [["--engine", "a=0"], /--engine a=0: SLOTS must be from 1/],
    [["--engine", "a=two"], /--engine a=two: write NAME or NAME=SLOTS/],
    [["--engine", "a", "--engine", "a=2"], /--engine a is given twice/],
    [["--engine", "a=2", "--concurrency", "2"], /--concurrency and --engine both say/],
  ];
  for (const [flags, message] of cases) {
    const result = await runVerdictInProcess(["eval", TASK, ...flags, "--home", dir.path]);
    assert.equal(result.code, 2, `${flags.join(" ")}: ${result.stderr}`);
    assert.match(result.stderr, message);
  }
});

Deno.test("an --engine that does not answer is exit 3 naming it, before anything is recorded", async () => {
  await using dir = await scratchDir("engine-down");
  const gone = `unix://${dir.path}/no-such.sock`;
  const result = await runVerdictInProcess([
    "eval",
    TASK,
    "--agent",
    "oracle",
    "--engine",
    `${gone}=2`,
    "--home",
    dir.path,
  ]);
  assert.equal(result.code, 3, result.stderr);
  assert.match(result.stderr, new RegExp(`--engine ${gone} does not answer`));
  await assert.rejects(Deno.stat(`${dir.path}/verdict.db`), Deno.errors.NotFound);
});
