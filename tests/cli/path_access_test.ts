import assert from "node:assert/strict";
import { join } from "node:path";
import { copyTree, PROJECT_ROOT, runVerdict, scratchDir } from "../_verdict.ts";

const OUTSIDE = "/tmp/verdict-outside-the-project";
// `deno task verdict` runs from Verdict's folder, which its permission set names.
const HERE = Deno.realPathSync(PROJECT_ROOT);

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
    assert(result.stderr.includes(`only inside the folder it runs from, ${HERE}.`), result.stderr);
    assert(result.stderr.includes(`Fix: give a path inside ${HERE}, or run verdict from`));
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
    assert.match(state.stderr, /Verdict's own folder here \(deno\.json "permissions\.verdict"\)/);
    assert(state.stderr.includes(`the folder it runs from, ${await Deno.realPath(outside)}, is`));
    assert.match(state.stderr, /install the command \(deno task install\) and run verdict from/);
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
  assert(
    result.stderr.includes(
      `Fix: keep task folders, the state directory and report files inside ${HERE}, or run`,
    ),
    result.stderr,
  );
  assert.doesNotMatch(result.stderr, /internal error/);
});

Deno.test("a symlink out of the project is refused up front, and nothing is read or written through it", async () => {
  await using scratch = await scratchDir("links");
  const outside = await Deno.makeTempDir({ prefix: "verdict-outside-" });
  try {
    const secret = join(outside, "secret.yaml");
    await Deno.writeTextFile(secret, "max_drop_pp: HOST-SECRET\n");
    const written = join(outside, "written.html");
    const home = join(scratch.path, "home");
    await Deno.symlink(secret, join(scratch.path, "gate.yaml"));
    await Deno.symlink(written, join(scratch.path, "report.html"));
    await Deno.symlink(outside, join(scratch.path, "out"));
    const cases: [string[], RegExp][] = [
      [
        ["compare", "a", "b", "--gate", join(scratch.path, "gate.yaml"), "--home", home],
        /cannot read .*gate\.yaml, given as --gate: a symlink leads it to .*secret\.yaml/,
      ],
      [
        ["report", "r", "--html", join(scratch.path, "report.html"), "--home", home],
        /cannot write .*report\.html, given as --html: a symlink leads it to .*written\.html/,
      ],
      [
        ["compare", "a", "b", "--html", join(scratch.path, "out", "c.html"), "--home", home],
        /cannot write .*out\/c\.html, given as --html: a symlink leads it to .*c\.html/,
      ],
      [
        ["stats", "r", "--home", join(scratch.path, "out", "state")],
        /cannot write .*out\/state, given as --home: a symlink leads it to .*state/,
      ],
      [["tasks", "list", join(scratch.path, "out")], /given as a task path: a symlink leads it/],
    ];
    for (const [args, expected] of cases) {
      const result = await runVerdict(args);
      assert.equal(result.code, 2, `${args.join(" ")}: ${result.stderr}`);
      assert.match(result.stderr, expected);
      assert(result.stderr.includes(`Fix: give a path that no link leads out of, inside ${HERE}`));
      assert.doesNotMatch(result.stderr, /HOST-SECRET|internal error/);
    }
    assert.deepEqual([...Deno.readDirSync(outside)].map((entry) => entry.name), ["secret.yaml"]);
  } finally {
    await Deno.remove(outside, { recursive: true });
  }
});

Deno.test("--html naming a folder, or a file in a missing folder, is exit 2 before any work", async () => {
  await using scratch = await scratchDir("html");
  const home = join(scratch.path, "home");
  const cases: [string, RegExp][] = [
    [scratch.path, /given as --html, is a folder\. Fix: name a file, such as .*report\.html/],
    [
      join(scratch.path, "no", "r.html"),
      /the folder of .*no\/r\.html, given as --html, does not exist\. Fix: create .*no first/,
    ],
  ];
  for (const [html, expected] of cases) {
    for (const command of [["report", "r"], ["compare", "a", "b"]]) {
      const result = await runVerdict([...command, "--html", html, "--home", home]);
      assert.equal(result.code, 2, `${command[0]} ${html}: ${result.stderr}`);
      assert.match(result.stderr, expected);
    }
  }
});
