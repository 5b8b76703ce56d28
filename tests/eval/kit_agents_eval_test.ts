/**
 * Claude Code and Codex CLI, the real binaries from their npm kits, evaluated end to end through
 * the CLI: under `--model scripted` each passes the bundled tasks that need only a shell and file
 * edits and its run replays with the same verdicts (no upstream anywhere); a task whose image
 * cannot run Claude Code is refused before the run; a loop run and a Claude Code run of the same
 * tasks compare.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { requireDocker } from "../_docker.ts";
import { requireKits } from "../_kits.ts";
import { runVerdict, scratchDir } from "../_verdict.ts";

/**
 * Twelve of the bundled tasks for each CLI (the whole suite takes twice as long; by hand, with
 * seed 0, Claude Code passed 13 of the 15 tasks it can run and Codex 17 of 18). The others: the
 * three busybox tasks' image has no glibc, which Claude Code needs (refused before the run, tested
 * below); `monorepo-find-bug` is built to need context compaction, without which the conversation
 * outgrows the task's token budget (the gateway stops it: `budget`); `budget-small-fix` allows
 * 40,000 tokens, fewer than five of Claude Code's requests take (its system prompt and two dozen
 * tools are about 10,000 tokens each time).
 */
const PYTHON_TASKS = [
  "add-json-output",
  "add-rate-limiter",
  "add-ttl-cache",
  "atomic-config-write",
  "docs-service-config",
  "fix-csv-quoting",
  "fix-invoice-rounding",
  "fix-parser-canary",
  "fix-slugify",
  "policy-no-installs",
  "refactor-extract-settings",
  "refactor-rename-api",
];
/** Claude Code's twelve, and one it fails (its requests outgrow the task's token budget). */
const CLAUDE_CODE_TASKS = [...PYTHON_TASKS, "budget-small-fix"];
const CODEX_TASKS = [
  ...PYTHON_TASKS.slice(0, 9),
  "shell-count-errors",
  "shell-fix-backup",
  "shell-rotate-logs",
];

function runIdOf(stdout: string): string {
  return /^run (\S+):/m.exec(stdout)![1];
}

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
 * Evaluates `tasks` with `agent`, checks that all but `failing` passed (those on a budget),
 * verifies and replays the run.
 */
async function evalAndReplay(
  agent: string,
  tasks: string[],
  home: string,
  failing: string[] = [],
): Promise<string> {
  const evaluated = await runVerdict([
    "eval",
    "tasks/",
    ...tasks.flatMap((task) => ["--task", task]),
    "--agent",
    agent,
    "--concurrency",
    "2",
    "--seed",
    "41",
    "--home",
    home,
  ]);
  assert.equal(evaluated.code, 0, evaluated.stdout + evaluated.stderr);
  const run = runIdOf(evaluated.stdout);
  const trials = await trialsOf(home, run);
  assert.match(
    evaluated.stdout,
    new RegExp(`${tasks.length} of ${tasks.length} trials: 12 passed, ${failing.length} failed`),
  );
  for (const trial of trials.filter((trial) => failing.includes(trial.task))) {
    assert.equal(trial.stop_reason, "budget", trial.task);
    assert.match(trial.reason, /max_total_tokens 40000/, trial.task);
  }
  for (const trial of trials.filter((trial) => !failing.includes(trial.task))) {
    assert.equal(trial.stop_reason, "completed", trial.task);
    assert.ok(trial.steps >= 3 && trial.tool_calls >= 2 && trial.tokens.input > 0, trial.task);
  }
  const verified = await runVerdict(["verify", run, "--home", home]);
  assert.equal(verified.code, 0, verified.stdout + verified.stderr);
  const replayed = await runVerdict(["replay", run, "--home", home]);
  assert.equal(replayed.code, 0, replayed.stdout + replayed.stderr);
  assert.match(
    replayed.stdout,
    new RegExp(`identical \\(${trials.length} identical, 0 diverged, 0 skipped\\)`),
  );
  return run;
}

Deno.test("Claude Code passes twelve bundled tasks, replays identically, and compares with the loop", async () => {
  await requireDocker();
  await using home = await scratchDir("kit-claude");
  await requireKits(home.path, ["claude-code"]);
  const tasks = CLAUDE_CODE_TASKS;
  const run = await evalAndReplay("claude-code", tasks, home.path, ["budget-small-fix"]);

  // Its own transcript reads back as a trajectory: the commands it ran, and their output.
  const trial = (await trialsOf(home.path, run)).find((trial) => trial.task === "fix-slugify")!;
  const shown = await runVerdict(["show", trial.session, "--home", home.path]);
  assert.equal(shown.code, 0, shown.stderr);
  assert.match(shown.stdout, /messages call \(streamed\)/);
  assert.match(shown.stdout, /\$ find '\.' -maxdepth 3/);

  // The loop on the same tasks passes all thirteen: the budget task is the one flip.
  const loop = await runVerdict([
    "eval",
    "tasks/",
    ...tasks.flatMap((task) => ["--task", task]),
    "--seed",
    "41",
    "--home",
    home.path,
  ]);
  assert.equal(loop.code, 0, loop.stdout + loop.stderr);
  assert.match(loop.stdout, /13 of 13 trials: 13 passed, 0 failed/);
  const compared = await runVerdict(["compare", runIdOf(loop.stdout), run, "--home", home.path]);
  assert.equal(compared.code, 0, compared.stdout + compared.stderr);
  assert.match(compared.stdout, /13 paired trials, pass rate 100\.0% → 92\.3%/);
  assert.match(compared.stdout, /b \(pass→fail\) 1, c \(fail→pass\) 0/);
  assert.match(compared.stdout, /^ {2}pass→fail budget-small-fix#0 /m);
});

Deno.test("Codex CLI passes the bundled tasks, busybox ones included, and replays identically", async () => {
  await requireDocker();
  await using home = await scratchDir("kit-codex");
  await requireKits(home.path, ["codex"]);
  await evalAndReplay("codex", CODEX_TASKS, home.path);
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
