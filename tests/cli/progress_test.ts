import { recordedRunConfig } from "../_run_config.ts";
import assert from "node:assert/strict";
import { join } from "node:path";
import { memoryIo } from "../../src/cli/io.ts";
import { progressDisplay } from "../../src/cli/progress.ts";
import { LogicalClock } from "../../src/core/clock.ts";
import { runConfig } from "../../src/eval/setup/run_identity.ts";
import type { TrialRecord } from "../../src/store/trial_record.ts";
import { requireDocker } from "../_docker.ts";
import { PROJECT_ROOT, runVerdict, scratchDir } from "../_verdict.ts";

const quote = (word: string) => `'${word.replaceAll("'", `'\\''`)}'`;

/** Runs the CLI with a real pseudo-terminal as its stdout and stderr (util-linux `script`). */
async function verdictOnTerminal(args: string[]): Promise<{ code: number; screen: string }> {
  const command = ["deno", "run", "-P=verdict", "--quiet", join(PROJECT_ROOT, "cli.ts"), ...args]
    .map(quote).join(" ");
  const output = await new Deno.Command("script", {
    args: ["--quiet", "--return", "--command", command, "/dev/null"],
    cwd: PROJECT_ROOT,
    clearEnv: true,
    env: {
      PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
      HOME: Deno.env.get("HOME") ?? "/root",
      TERM: "xterm",
    },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const screen = new TextDecoder().decode(output.stdout).replaceAll("\r\n", "\n");
  return { code: output.code, screen };
}

Deno.test("on a terminal, progress is one status line redrawn in place; elsewhere, a line per trial", async () => {
  await requireDocker();
  await using home = await scratchDir("progress");
  const args = ["eval", "--agent", "oracle", "tests/fixtures/bench/trivial", "--repeat", "2"];
  const terminal = await verdictOnTerminal([...args, "--home", join(home.path, "tty")]);
  assert.equal(terminal.code, 0, terminal.screen);
  assert.match(terminal.screen, /^run \w+: 2 trials \(1 task × 2\), agent oracle/m);
  assert.ok(
    terminal.screen.includes("[0/2] 0 passed, 0 failed · 00:"),
    JSON.stringify(terminal.screen),
  );
  assert.ok(
    terminal.screen.includes("\r\x1b[K[2/2] 2 passed, 0 failed · "),
    JSON.stringify(terminal.screen),
  );
  assert.doesNotMatch(terminal.screen, /trivial#\d pass/, "no per-trial lines on a terminal");

  const piped = await runVerdict([...args, "--home", join(home.path, "pipe")]);
  assert.equal(piped.code, 0, piped.stderr);
  assert.match(piped.stdout, /^\[1\/2\] trivial#\d pass \d+\.\ds$/m);
  assert.match(piped.stdout, /^\[2\/2\] trivial#\d pass \d+\.\ds$/m);
  assert.ok(!piped.stdout.includes("\x1b["), "no escape codes when stdout is not a terminal");
});

Deno.test("on a terminal the status line names the running trials and the time left, and a failure is printed as it happens", async () => {
  const io = memoryIo();
  const clock = new LogicalClock({ tick: 0 });
  const progress = progressDisplay(io.out, true, clock);
  const config = recordedRunConfig({
    repeat: 2,
    concurrency: 2,
    task_dirs: { a: "tasks/a", b: "tasks/b" },
    categories: { a: "bugfix", b: "bugfix" },
  });
  const run = { id: "abc", config, createdAt: 0, status: "running" as const };
  const trial = (task: string, repeat: number, verdict: "pass" | "fail") =>
    ({
      task,
      repeat,
      verdict,
      bucket: verdict === "pass" ? "pass" : "agent_failure",
      reason: verdict === "pass" ? "tests passed" : "tests failed (tests/test.sh exited 1)\nmore",
      duration_ms: 10_000,
    }) as unknown as TrialRecord;
  progress.runStarted(run, runConfig(run), 4, []);
  progress.trialStarted!("a", 0);
  progress.trialStarted!("a", 1);
  await clock.sleep(10_000);
  progress.trialFinished(trial("a", 0, "fail"), 1, 4);
  const screen = io.stdout();
  assert.ok(screen.includes("\r\x1b[K[0/4] 0 passed, 0 failed · 00:00 · running a#0, a#1"), screen);
  assert.ok(
    screen.endsWith(
      "\r\x1b[K[1/4] a#0 fail (agent_failure: tests failed (tests/test.sh exited 1)) 10.0s\n" +
        "[1/4] 0 passed, 1 failed · 00:10 · 00:30 left · running a#1",
    ),
    JSON.stringify(screen),
  );
  progress.trialStarted!("b", 0);
  progress.trialFinished(trial("a", 1, "pass"), 2, 4);
  assert.ok(
    io.stdout().endsWith("\r\x1b[K[2/4] 1 passed, 1 failed · 00:10 · 00:10 left · running b#0"),
  );
});
