/**
 * An installed agent end to end through the CLI: the Python fixture agent (standard library only,
 * Chat Completions) solves bundled tasks in their containers under `--model scripted`, reaching
 * the model only through the trial's gateway, and its run replays from the record with the same
 * verdicts; a changed agent diverges at its first changed request. Its `--agent-files` come from a
 * 0700 folder of 0600 files (what `mktemp -d` and a cautious umask make): copied into the agent's
 * container, readable by the agent user and not writable by it.
 *
 * One task shows what ten did before (each was the same agent on the same image): the run, its
 * replay and a changed program's replay are three trials.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { requireDocker } from "../../_docker.ts";
import { copyTree, PROJECT_ROOT, runVerdict, scratchDir } from "../../_verdict.ts";
import { runVerdictInProcess } from "../../cli/_in_process.ts";

// The agent first tries to change its own program: that must fail (exit 9 if it does not).
const AGENT =
  "cmd:if (echo '# changed' >> /verdict/agent/agent.py) 2>/dev/null; then exit 9; fi; " +
  "python3 /verdict/agent/agent.py";
const AGENT_FILES = "tests/fixtures/agents/py_agent";

async function lockDown(folder: string): Promise<void> {
  for await (const entry of Deno.readDir(folder)) {
    const path = join(folder, entry.name);
    if (entry.isDirectory) await lockDown(path);
    else if (entry.isFile) await Deno.chmod(path, 0o600);
  }
  await Deno.chmod(folder, 0o700);
}

Deno.test("a Python agent of its own, from a locked-down folder it cannot change, passes a bundled task under --model scripted; its run replays identically, and diverges once its program changes", async (t) => {
  await requireDocker();
  await using home = await scratchDir("cmd-eval");
  const files = join(home.path, "agent");
  await copyTree(join(PROJECT_ROOT, AGENT_FILES), files);
  await lockDown(files);
  const evaluated = await runVerdict([
    "eval",
    "tasks/fix-slugify",
    "--agent",
    AGENT,
    "--agent-files",
    files,
    "--seed",
    "31",
    "--home",
    home.path,
  ]);
  assert.equal(evaluated.code, 0, evaluated.stdout + evaluated.stderr);
  assert.match(evaluated.stdout, /1 of 1 trials: 1 passed, 0 failed/);
  const run = /^run (\S+):/m.exec(evaluated.stdout)![1];
  const { trials: [trial] } = JSON.parse(
    await Deno.readTextFile(join(home.path, "runs", run, "results.json")),
  );
  assert.equal(trial.stop_reason, "completed", trial.reason);
  assert.deepEqual([trial.verdict, trial.bucket], ["pass", "pass"], trial.reason);
  assert.ok(trial.steps >= 3 && trial.tokens.input > 0 && trial.cost_usd > 0, trial.reason);

  await t.step("the run verifies and replays identically", async () => {
    const verified = await runVerdictInProcess(["verify", run, "--home", home.path]);
    assert.equal(verified.code, 0, verified.stdout + verified.stderr);
    const replayed = await runVerdictInProcess(["replay", run, "--home", home.path]);
    assert.equal(replayed.code, 0, replayed.stdout + replayed.stderr);
    assert.match(replayed.stdout, /identical \(1 identical, 0 diverged, 0 skipped\)/);
  });

  const session = trial.session;
  await t.step(
    "the model turns read back: the instruction, each answer's text, the agent's tool calls and its command",
    async () => {
      const shown = await runVerdictInProcess(["show", session, "--home", home.path]);
      assert.equal(shown.code, 0, shown.stderr);
      assert.match(shown.stdout, /step 1 \(\d+ in, \d+ out, \$[\d.]+\): chat_completions call/);
      assert.match(shown.stdout, /→ write_file \{"path":"textkit\/slug\.py".*\[run by the agent\]/);
      // The instruction it got, and its command with how it ended.
      assert.ok(
        shown.stdout.includes("\ntask:\n  # Bug: `slugify()` produces broken URL slugs\n"),
        shown.stdout,
      );
      assert.ok(
        shown.stdout.includes(`\nagent command: ${AGENT.slice("cmd:".length)} (exit code 0)\n`),
        shown.stdout,
      );
    },
  );

  await t.step(
    "a replay of the agent whose program changed diverges at its first changed request",
    async () => {
      const program = join(files, "agent.py");
      const source = await Deno.readTextFile(program);
      const changed = source.replace(/"content": instruction/, '"content": instruction + "!"');
      assert.notEqual(
        changed,
        source,
        "the fixture agent sends the instruction as its user message",
      );
      await Deno.writeTextFile(program, changed);
      const replayed = await runVerdictInProcess(["replay", session, "--home", home.path]);
      assert.equal(replayed.code, 1, replayed.stdout + replayed.stderr);
      assert.match(
        replayed.stdout,
        /diverged at step 1: request 1 differs from the record at messages\[\d\]\.content/,
      );
    },
  );
});
