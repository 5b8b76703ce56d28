/**
 * Claude Code and Codex CLI, the real binaries from their npm kits, evaluated end to end through
 * the CLI: under `--model scripted` each passes a bundled task that needs only a shell and file
 * edits (Codex on the glibc-less busybox image too) and its run replays with the same verdicts
 * (no upstream anywhere); a task whose image cannot run Claude Code is refused before the run; a
 * loop run and a Claude Code run of the same tasks compare, the budget task being the one flip.
 *
 * Two tasks a CLI, not the suite: one trial shows what twelve did (by hand, with seed 0, Claude
 * Code passed 13 of the 15 tasks it can run and Codex 17 of 18). `budget-small-fix` allows 40,000
 * tokens, fewer than five of Claude Code's requests take (its system prompt and two dozen tools are
 * about 10,000 tokens each time): the gateway stops it on `budget` before the task is done, without
 * the budget ever being passed (each call holds its worst case until answered: for its first, its
 * 50 KB body's bytes, more than the budget), where the loop passes.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { requireDocker } from "../../_docker.ts";
import { requireKits } from "../../_kits.ts";
import { runVerdict, scratchDir } from "../../_verdict.ts";
import { runVerdictInProcess } from "../../cli/_in_process.ts";

interface TrialResult {
  task: string;
  session: string;
  verdict: string;
  reason: string;
  stop_reason: string;
  steps: number;
  tool_calls: number;
  tokens: { input: number; output: number };
}

async function trialsOf(home: string, run: string): Promise<TrialResult[]> {
  const results = JSON.parse(await Deno.readTextFile(join(home, "runs", run, "results.json")));
  return results.trials;
}

/**
 * Evaluates `tasks` with each of `agents` (one sweep, a run each, two trials at once), checks that
 * all of the first agent's trials but `failing` passed (those on a budget), verifies its run and
 * replays it (or only its trial of `replayOnly`); returns the runs in the order of `agents`.
 */
async function evalAndReplay(
  agents: string[],
  tasks: string[],
  home: string,
  { failing = [], replayOnly }: { failing?: string[]; replayOnly?: string } = {},
): Promise<string[]> {
  const evaluated = await runVerdict([
    "eval",
    "tasks/",
    ...tasks.flatMap((task) => ["--task", task]),
    ...agents.flatMap((agent) => ["--agent", agent]),
    "--concurrency",
    "2",
    "--seed",
    "41",
    "--home",
    home,
  ]);
  assert.equal(evaluated.code, 0, evaluated.stdout + evaluated.stderr);
  const runs = [...evaluated.stdout.matchAll(/^run (\S+):/gm)].map((match) => match[1]);
  assert.equal(runs.length, agents.length, evaluated.stdout);
  const run = runs[0];
  const trials = await trialsOf(home, run);
  assert.deepEqual(trials.map((trial) => trial.task).sort(), [...tasks].sort());
  const passed = tasks.length - failing.length;
  assert.match(
    evaluated.stdout,
    new RegExp(
      `${tasks.length} of ${tasks.length} trials: ${passed} passed, ${failing.length} failed`,
    ),
  );
  for (const trial of trials.filter((trial) => failing.includes(trial.task))) {
    assert.deepEqual([trial.stop_reason, trial.verdict], ["budget", "fail"], trial.task);
    assert.match(
      trial.reason,
      /^stopped on its budget \(max_total_tokens 40000 cannot afford another call .*\); tests failed/,
      trial.task,
    );
    assert(trial.tokens.input + trial.tokens.output <= 40_000, JSON.stringify(trial.tokens));
  }
  for (const trial of trials.filter((trial) => !failing.includes(trial.task))) {
    assert.deepEqual([trial.stop_reason, trial.verdict], ["completed", "pass"], trial.task);
    assert.ok(trial.steps >= 3 && trial.tool_calls >= 2 && trial.tokens.input > 0, trial.task);
  }
  const verified = await runVerdictInProcess(["verify", run, "--home", home]);
  assert.equal(verified.code, 0, verified.stdout + verified.stderr);
  const replayedTrials = trials.filter((trial) => (replayOnly ?? trial.task) === trial.task);
  const target = replayOnly === undefined ? run : replayedTrials[0].session;
  const replayed = await runVerdictInProcess(["replay", target, "--home", home]);
  assert.equal(replayed.code, 0, replayed.stdout + replayed.stderr);
  assert.match(
    replayed.stdout,
    new RegExp(`identical \\(${replayedTrials.length} identical, 0 diverged, 0 skipped\\)`),
  );
  return runs;
}

Deno.test("Claude Code passes a bundled task, stops on a token budget, replays identically, and compares with the loop", async () => {
  await requireDocker();
  await using home = await scratchDir("kit-claude");
  await requireKits(home.path, ["claude-code"]);
  // One sweep: Claude Code's run, then the loop's on the same tasks, repeats and seed.
  const [run, loopRun] = await evalAndReplay(
    ["claude-code", "loop"],
    ["fix-slugify", "budget-small-fix"],
    home.path,
    { failing: ["budget-small-fix"] },
  );

  // Its own transcript reads back as a trajectory: the commands it ran, and their output.
  const trial = (await trialsOf(home.path, run)).find((trial) => trial.task === "fix-slugify")!;
  const shown = await runVerdictInProcess(["show", trial.session, "--home", home.path]);
  assert.equal(shown.code, 0, shown.stderr);
  assert.match(shown.stdout, /messages call \(streamed\)/);
  assert.match(shown.stdout, /\$ find '\.' -maxdepth 3/);

  // Its statistics come from the gateway's record, as the loop's come from its own.
  const stats = await runVerdictInProcess(["stats", run, "--home", home.path]);
  assert.equal(stats.code, 0, stats.stderr);
  assert.match(stats.stdout, /1 of 2 passed/);
  // (The budget task's trial made no call: its first request's bound, one token a byte, is more
  // than 40,000 tokens can hold. So the medians of two are 0 and the totals are fix-slugify's.)
  assert.match(
    stats.stdout,
    /tokens median \d+, p95 [1-9]\d* .*cost median \$[\d.]+, p95 \$0\.0*[1-9]/,
  );
  assert.match(stats.stdout, /steps median \d+, p95 [1-9]/);

  // The loop passes both: the budget task is the one flip.
  assert.deepEqual(
    (await trialsOf(home.path, loopRun)).map((trial) => trial.verdict),
    ["pass", "pass"],
  );
  const compared = await runVerdictInProcess(["compare", loopRun, run, "--home", home.path]);
  assert.equal(compared.code, 0, compared.stdout + compared.stderr);
  assert.match(compared.stdout, /2 paired trials, pass rate 100\.0% → 50\.0%/);
  assert.match(compared.stdout, /b \(pass→fail\) 1, c \(fail→pass\) 0/);
  assert.match(compared.stdout, /^ {2}pass→fail budget-small-fix#0 /m);
});

Deno.test("Codex CLI passes a Python task and a busybox one (no glibc) in one run, and its Python trial replays identically", async () => {
  await requireDocker();
  await using home = await scratchDir("kit-codex");
  await requireKits(home.path, ["codex"]);
  await evalAndReplay(["codex"], ["fix-slugify", "shell-count-errors"], home.path, {
    replayOnly: "fix-slugify",
  });
});

Deno.test("a task whose image cannot run Claude Code is refused before the run, naming why", async () => {
  await requireDocker();
  await using home = await scratchDir("kit-refused");
  await requireKits(home.path, ["claude-code"]);
  const refused = await runVerdict([
    "eval",
    "tasks/shell-count-errors",
    "tasks/fix-slugify",
    "--agent",
    "claude-code",
    "--home",
    home.path,
  ]);
  assert.equal(refused.code, 2, refused.stdout + refused.stderr);
  assert.match(
    refused.stderr,
    /the image verdict\/busybox cannot run claude-code@[\d.]+, which needs the C library .*\/lib64\/ld-linux-x86-64\.so\.2.*needed by shell-count-errors/,
  );
  assert.doesNotMatch(refused.stderr, /verdict\/python/);
  assert.doesNotMatch(refused.stdout, /^run /m);
});
