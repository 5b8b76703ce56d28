/**
 * An installed agent end to end through the CLI: the Python fixture agent (standard library only,
 * Chat Completions) solves bundled tasks in their containers under `--model scripted`, reaching
 * the model only through the trial's gateway, and its run replays from the record with the same
 * verdicts; a changed agent diverges at its first changed request.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { requireDocker } from "../../_docker.ts";
import { copyTree, PROJECT_ROOT, runVerdict, scratchDir } from "../../_verdict.ts";

const AGENT = "cmd:python3 /verdict/agent/agent.py";
const AGENT_FILES = "tests/fixtures/agents/py_agent";
const PYTHON_TASKS = [
  "add-json-output",
  "add-rate-limiter",
  "add-ttl-cache",
  "atomic-config-write",
  "docs-service-config",
  "fix-csv-quoting",
  "fix-invoice-rounding",
  "fix-slugify",
  "refactor-extract-settings",
  "refactor-rename-api",
];

function runIdOf(stdout: string): string {
  return /^run (\S+):/m.exec(stdout)![1];
}

Deno.test("a Python agent of its own passes 10 bundled tasks under --model scripted, and its run replays identically", async () => {
  await requireDocker();
  await using home = await scratchDir("cmd-eval");
  const evaluated = await runVerdict([
    "eval",
    ...PYTHON_TASKS.map((task) => `tasks/${task}`),
    "--agent",
    AGENT,
    "--agent-files",
    AGENT_FILES,
    "--seed",
    "31",
    "--home",
    home.path,
  ]);
  assert.equal(evaluated.code, 0, evaluated.stdout + evaluated.stderr);
  assert.match(evaluated.stdout, /10 of 10 trials: 10 passed, 0 failed/);
  const run = runIdOf(evaluated.stdout);
  const results = JSON.parse(
    await Deno.readTextFile(join(home.path, "runs", run, "results.json")),
  );
  for (const trial of results.trials) {
    assert.equal(trial.stop_reason, "completed", trial.task);
    assert.ok(trial.steps >= 3 && trial.tokens.input > 0 && trial.cost_usd > 0, trial.task);
  }
  const verified = await runVerdict(["verify", run, "--home", home.path]);
  assert.equal(verified.code, 0, verified.stdout + verified.stderr);

  const replayed = await runVerdict(["replay", run, "--home", home.path]);
  assert.equal(replayed.code, 0, replayed.stdout + replayed.stderr);
  assert.match(replayed.stdout, /identical \(10 identical, 0 diverged, 0 skipped\)/);
});

Deno.test("a replay of an installed agent whose program changed diverges at its first changed request", async () => {
  await requireDocker();
  await using home = await scratchDir("cmd-diverge");
  const files = join(home.path, "agent");
  await copyTree(join(PROJECT_ROOT, AGENT_FILES), files);
  const args = ["--agent", AGENT, "--agent-files", files, "--home", home.path];
  const evaluated = await runVerdict(["eval", "tasks/fix-slugify", "--seed", "32", ...args]);
  assert.equal(evaluated.code, 0, evaluated.stdout + evaluated.stderr);
  const run = runIdOf(evaluated.stdout);
  // The model turns read back: each answer's text and the agent's own tool calls.
  const results = JSON.parse(
    await Deno.readTextFile(join(home.path, "runs", run, "results.json")),
  );
  const shown = await runVerdict(["show", results.trials[0].session, "--home", home.path]);
  assert.equal(shown.code, 0, shown.stderr);
  assert.match(shown.stdout, /step 1 \(\d+ in, \d+ out, \$[\d.]+\): chat_completions call/);
  assert.match(shown.stdout, /→ write_file \{"path":"textkit\/slug\.py".*\[run by the agent\]/);

  const program = join(files, "agent.py");
  const source = await Deno.readTextFile(program);
  const changed = source.replace(/"content": instruction/, '"content": instruction + "!"');
  assert.notEqual(changed, source, "the fixture agent sends the instruction as its user message");
  await Deno.writeTextFile(program, changed);
  const replayed = await runVerdict(["replay", run, "--home", home.path]);
  assert.equal(replayed.code, 1, replayed.stdout + replayed.stderr);
  assert.match(
    replayed.stdout,
    /diverged at step 1: request 1 differs from the record at messages\[\d\]\.content/,
  );
});
