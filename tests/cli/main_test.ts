import assert from "node:assert/strict";
import { runCli } from "../../src/cli/main.ts";
import { memoryIo } from "../../src/cli/io.ts";
import { VERSION } from "../../src/core/version.ts";
import { PROJECT_ROOT, runVerdict } from "../_verdict.ts";

Deno.test("--version prints the version kept in deno.json", async () => {
  const config = JSON.parse(await Deno.readTextFile(`${PROJECT_ROOT}/deno.json`));
  assert.deepEqual(VERSION, config.version);
  const result = await runVerdict(["--version"]);
  assert.deepEqual(result, { code: 0, stdout: `verdict ${VERSION}\n`, stderr: "" });
});

Deno.test("--help lists every command of the contract; a command's --help lists its flags", async () => {
  const help = await runVerdict(["--help"]);
  assert.deepEqual(help.code, 0);
  for (
    const command of [
      "eval",
      "tasks check",
      "tasks list",
      "resume",
      "replay",
      "verify",
      "stats",
      "compare",
      "report",
      "show",
    ]
  ) {
    assert.ok(help.stdout.includes(`  ${command} `), `--help lacks ${command}`);
  }
  const verify = await runVerdict(["verify", "--help"]);
  assert.deepEqual(verify.code, 0);
  assert.ok(verify.stdout.startsWith("Usage: verdict verify RUN [options]"));
  assert.ok(verify.stdout.includes("--home DIR"));
});

Deno.test("no arguments prints help and exits 2", async () => {
  const io = memoryIo();
  assert.deepEqual(await runCli([], io), 2);
  assert.ok(io.stdout().includes("Usage: verdict COMMAND"));
});

Deno.test("an unknown command or flag exits 2 and suggests the nearest valid one", async () => {
  const command = await runVerdict(["verfy", "x"]);
  assert.deepEqual(command.code, 2);
  assert.deepEqual(
    command.stderr.trim(),
    "verdict: unknown command 'verfy'; did you mean 'verify'?",
  );
  const flag = await runVerdict(["verify", "x", "--hom", "y"]);
  assert.deepEqual(flag.code, 2);
  assert.deepEqual(
    flag.stderr.trim(),
    "verdict: unknown flag --hom for 'verdict verify'; did you mean --home?",
  );
  const sub = await runVerdict(["tasks", "lst"]);
  assert.deepEqual(sub.code, 2);
  assert.ok(sub.stderr.includes("did you mean 'tasks list'?"));
  const io = memoryIo();
  assert.deepEqual(await runCli(["verify"], io), 2);
  assert.ok(io.stderr().includes("needs RUN"));
  assert.deepEqual(await runCli(["verify", "a", "b"], io), 2);
  assert.ok(io.stderr().includes("too many"));
});

Deno.test("a flag missing its value, or given one it does not take, is one clear line", async () => {
  const cases: [string[], string][] = [
    [["verify", "x", "--home"], "verdict: --home needs a value (DIR) (verdict verify)"],
    [
      ["eval", "--model", "--json"],
      "verdict: --model needs a value (SPEC) before the next flag; write --model=SPEC for a " +
      "value that starts with '-' (verdict eval)",
    ],
    [["eval", "--json=yes"], "verdict: --json takes no value: write --json alone (verdict eval)"],
  ];
  for (const [args, expected] of cases) {
    const io = memoryIo();
    assert.equal(await runCli(args, io), 2, args.join(" "));
    assert.equal(io.stderr(), `${expected}\n`);
  }
});

Deno.test("a negative number after a flag is the flag's value, checked by the flag", async () => {
  const result = await runVerdict(["eval", "--repeat", "-1", "--home", "tests/.artifacts/never"]);
  assert.equal(result.code, 2);
  assert.equal(result.stderr.trim(), "verdict: --repeat -1 is not a whole number of at least 1");
});
