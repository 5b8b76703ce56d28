/**
 * `--agent` given several times is a sweep: one run per agent (and per model for the agents a
 * model drives), over the same tasks; the agents are all checked before anything runs.
 */
import assert from "node:assert/strict";
import { requireDocker } from "../_docker.ts";
import { runVerdict, scratchDir } from "../_verdict.ts";

Deno.test("--agent oracle --agent nop makes two runs of the same task: the oracle passes, nop fails", async () => {
  await requireDocker();
  await using home = await scratchDir("agent_sweep");
  const result = await runVerdict([
    "eval",
    "tasks/fix-slugify",
    "--agent",
    "oracle",
    "--agent",
    "nop",
    "--home",
    home.path,
    "--json",
  ]);
  assert.equal(result.code, 0, result.stderr);
  const { runs } = JSON.parse(result.stdout) as {
    runs: { run: { agent: string; tasks: string[] }; trials: { verdict: string }[] }[];
  };
  assert.deepEqual(
    runs.map(({ run, trials }) => [run.agent, run.tasks, trials.map((trial) => trial.verdict)]),
    [["oracle", ["fix-slugify"], ["pass"]], ["nop", ["fix-slugify"], ["fail"]]],
  );
  assert.equal([...Deno.readDirSync(`${home.path}/runs`)].length, 2, "one run folder each");
});

Deno.test("a sweep is refused whole, before any run, when one of its agents cannot be", async () => {
  await using home = await scratchDir("agent_sweep_refused");
  const cases: [string[], string][] = [
    [
      ["--agent", "oracle", "--agent", "nop", "--model", "scripted"],
      "--model is for agents driven by a model; --agent oracle, nop uses none",
    ],
    [
      ["--agent", "nop", "--agent", "robot"],
      "--agent robot is not an agent: use loop, oracle, nop, claude-code, codex (NAME@VERSION " +
      "for another version of an installed one), or cmd:COMMAND for a program of your own",
    ],
    [
      ["--agent", "nop", "--agent", "codex@latest"],
      "--agent codex@latest names no version Verdict can use",
    ],
  ];
  for (const [args, expected] of cases) {
    const result = await runVerdict(["eval", "tasks/fix-slugify", ...args, "--home", home.path]);
    assert.equal(result.code, 2, `${args.join(" ")}: ${result.stderr}`);
    assert(result.stderr.startsWith(`verdict: ${expected}`), result.stderr);
  }
  assert.deepEqual([...Deno.readDirSync(home.path)], [], "no run folder, no store");
});
