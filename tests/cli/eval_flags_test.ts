import assert from "node:assert/strict";
import { requireDocker } from "../_docker.ts";
import { runVerdict, scratchDir } from "../_verdict.ts";

Deno.test("bad eval flags exit 2 with what to do", async () => {
  const cases: [string[], RegExp][] = [
    [
      ["--agent", "robot"],
      /--agent robot is not an agent: use loop, oracle, nop, claude-code, codex/,
    ],
    [["--repeat", "0"], /--repeat 0 is not a whole number of at least 1/],
    [["--concurrency", "two"], /--concurrency two is not a whole number of at least 1/],
    [["--min-pass-rate", "80"], /--min-pass-rate 80 must be a fraction from 0 to 1, such as 0\.8/],
    [
      ["--agent", "nop", "--task", "fix-slugfy"],
      /no task 'fix-slugfy' in the suite; did you mean 'fix-slugify'\?/,
    ],
    [["--agent", "nop", "no/such/folder"], /no\/such\/folder does not exist/],
  ];
  for (const [args, expected] of cases) {
    const result = await runVerdict(["eval", ...args, "--home", "tests/.artifacts/never-written"]);
    assert.equal(result.code, 2, `${args.join(" ")}: ${result.stderr}`);
    assert.match(result.stderr, expected);
  }
});

Deno.test("counts past what a run can hold are refused in one line, before anything is recorded", async () => {
  await using home = await scratchDir("counts");
  const cases: [string[], string][] = [
    [
      ["--repeat", "99999999999"],
      "--repeat 99999999999 is more than 1000, the most it takes: use 1000 or fewer",
    ],
    [
      ["--concurrency", "100000"],
      "--concurrency 100000 is more than 256, the most it takes: use 256 or fewer",
    ],
    [["--repeat", "-1"], "--repeat -1 is not a whole number of at least 1"],
    [["--seed", "-5"], "--seed -5 is not a whole number of at least 0"],
  ];
  for (const [args, expected] of cases) {
    const result = await runVerdict(["eval", "--agent", "nop", ...args, "--home", home.path]);
    assert.equal(result.code, 2, `${args.join(" ")}: ${result.stderr}`);
    assert.equal(result.stderr.trim(), `verdict: ${expected}`);
  }
  assert.deepEqual([...Deno.readDirSync(home.path)], [], "no run folder, no store");
});

Deno.test("tasks check refuses a bad --concurrency as eval does, exit 2", async () => {
  const result = await runVerdict([
    "tasks",
    "check",
    "--concurrency",
    "two",
    "--home",
    "tests/.artifacts/never-written",
  ]);
  assert.equal(result.code, 2, result.stderr);
  assert.match(result.stderr, /--concurrency two is not a whole number of at least 1/);
});

Deno.test("--min-pass-rate turns a low pass rate into exit 1", async () => {
  await requireDocker();
  await using home = await scratchDir("minpass");
  const failing = await runVerdict([
    "eval",
    "--agent",
    "nop",
    "tests/fixtures/bench",
    "--min-pass-rate",
    "0.5",
    "--home",
    home.path,
  ]);
  assert.equal(failing.code, 1, failing.stderr);
  assert.match(failing.stdout, /pass rate 0\.0% is below --min-pass-rate 50\.0%/);
  const passing = await runVerdict([
    "eval",
    "--agent",
    "oracle",
    "tests/fixtures/bench",
    "--min-pass-rate",
    "1",
    "--home",
    home.path,
  ]);
  assert.equal(passing.code, 0, passing.stderr);
});
