import assert from "node:assert/strict";
import { join } from "node:path";
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
