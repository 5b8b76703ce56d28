import assert from "node:assert/strict";
import { join } from "node:path";
import { copyTree, PROJECT_ROOT, runVerdict, scratchDir } from "../_verdict.ts";

const OUTSIDE = "/tmp/verdict-outside-the-project";

Deno.test("a path outside the project folder is exit 2 naming the flag, and nothing is written", async () => {
  await using home = await scratchDir("access");
  const cases: [string[], RegExp][] = [
    [["eval", OUTSIDE], /cannot read \/tmp\/verdict-outside-the-project, given as a task path/],
    [["tasks", "check", OUTSIDE], /cannot read .*, given as a task path/],
    [["tasks", "list", "tasks", OUTSIDE], /cannot read .*, given as a task path/],
    [["eval", "--home", OUTSIDE], /cannot write .*, given as --home/],
    [
      ["eval", "--prices", `${OUTSIDE}/prices.yaml`],
      /cannot read .*prices\.yaml, given as --prices/,
    ],
    [
      ["eval", "--policy", `${OUTSIDE}/policy.yaml`],
      /cannot read .*policy\.yaml, given as --policy/,
    ],
    [["resume", "r", "--policy", `${OUTSIDE}/p.yaml`], /given as --policy/],
    [["report", "r", "--html", `${OUTSIDE}/r.html`], /cannot write .*r\.html, given as --html/],
    [
      ["compare", "a", "b", "--gate", `${OUTSIDE}/g.yaml`],
      /cannot read .*g\.yaml, given as --gate/,
    ],
    [
      ["compare", "a", "b", "--html", `${OUTSIDE}/c.html`],
      /cannot write .*c\.html, given as --html/,
    ],
  ];
  for (const [args, expected] of cases) {
    const withHome = args.includes("--home") || args[1] === "list"
      ? args
      : [...args, "--home", home.path];
    const result = await runVerdict(withHome);
    assert.equal(result.code, 2, `${args.join(" ")}: ${result.stderr}`);
    assert.match(result.stderr, expected);
    assert.match(result.stderr, /Fix: give a path inside the project folder/);
    assert.doesNotMatch(result.stderr, /internal error|NotCapable/);
  }
  const fromEnv = await runVerdict(["stats", "r"], { env: { VERDICT_HOME: OUTSIDE } });
  assert.equal(fromEnv.code, 2, fromEnv.stderr);
  assert.match(
    fromEnv.stderr,
    /cannot write \/tmp\/verdict-outside-the-project, given as VERDICT_HOME/,
  );
  assert.deepEqual([...Deno.readDirSync(home.path)], [], "no state was created");
  assert.throws(() => Deno.statSync(OUTSIDE), Deno.errors.NotFound);
});

Deno.test("run from outside the project: defaults are checked and named, keywords are not paths", async () => {
  await using home = await scratchDir("access");
  const outside = await Deno.makeTempDir({ prefix: "verdict-cwd-" });
  try {
    const fromOutside = (args: string[]) => runVerdict(args, { cwd: outside });
    const suite = await fromOutside(["tasks", "list"]);
    assert.equal(suite.code, 2, suite.stderr);
    assert.match(suite.stderr, /cannot read tasks, given as the default suite/);
    const state = await fromOutside(["stats", "r"]);
    assert.equal(state.code, 2, state.stderr);
    assert.match(state.stderr, /cannot write \.verdict, given as the default state directory/);
    // `default` names the built-in policy, not a file in the current folder.
    const keyword = await fromOutside(["resume", "r", "--policy", "default", "--home", home.path]);
    assert.equal(keyword.code, 2, keyword.stderr);
    assert.match(keyword.stderr, /no state database at/);
  } finally {
    await Deno.remove(outside, { recursive: true });
  }
});

Deno.test("an empty path is exit 2 naming the flag", async () => {
  await using home = await scratchDir("access");
  for (const flag of ["--html", "--gate"]) {
    const result = await runVerdict(["compare", "a", "b", flag, "", "--home", home.path]);
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr, new RegExp(`${flag} is empty: give a path`));
  }
});

Deno.test("a permission refused while a command works is exit 2 with the path, not an internal error", async () => {
  await using scratch = await scratchDir("access");
  const task = join(scratch.path, "fix-slugify");
  await copyTree(join(PROJECT_ROOT, "tasks", "fix-slugify"), task);
  const result = await runVerdict(["tasks", "list", task], {
    denyRead: [join(task, "task.yaml")],
  });
  assert.equal(result.code, 2, result.stderr);
  assert.match(result.stderr, /verdict: not permitted: Requires read access to ".*task\.yaml"/);
  assert.match(
    result.stderr,
    /Fix: keep task folders, the state directory and report files inside it/,
  );
  assert.doesNotMatch(result.stderr, /internal error/);
});
