import assert from "node:assert/strict";
import { join } from "node:path";
import { readTree } from "../../src/task/file_tree.ts";
import { requireDocker } from "../_docker.ts";
import { runVerdict, scratchDir } from "../_verdict.ts";

// A greet.sh that answers what the calling test script expects for its arguments, read from that
// script: it passes any case, the canary's included.
const ANSWERS_FROM_THE_TESTS = `#!/bin/sh
caller=$(tr '\\0' '\\n' </proc/$PPID/cmdline | grep '^/verdict/tests/')
grep -- " \${1:-}\\$" "$caller" | head -n 1 | cut -d'"' -f4
`;

/** Every entry of a folder, with file contents, one line each. */
async function listing(root: string): Promise<string[]> {
  return (await readTree(root)).map((entry) =>
    entry.type === "file"
      ? `${entry.path} ${entry.mode.toString(8)} ${new TextDecoder().decode(entry.data)}`
      : entry.type === "dir"
      ? `${entry.path}/`
      : `${entry.path} -> ${entry.target}`
  );
}

Deno.test("tasks new writes a task that tasks check accepts as is, whose canary catches a cheat", async () => {
  await requireDocker();
  await using scratch = await scratchDir("tasks-new");
  const cwd = scratch.path;

  const created = await runVerdict(["tasks", "new", "hello"], { cwd });
  assert.equal(created.code, 0, created.stderr);
  assert.match(
    created.stdout,
    /created tasks\/hello: .*\n.*\n {2}verdict tasks check tasks\/hello/,
  );
  assert.match(await Deno.readTextFile(join(cwd, "tasks/hello/task.yaml")), /^id: hello +#/m);

  // The oracle passes; the nop agent fails, and the untouched workspace fails the success script.
  const checked = await runVerdict(["tasks", "check", "--home", ".verdict"], { cwd });
  assert.equal(checked.code, 0, checked.stdout + checked.stderr);
  assert.match(checked.stdout, /hello +pass +fail +fail +ok/);
  assert.match(checked.stdout, /1 of 1 tasks check out/);

  // A solution that reads its answers from the hidden tests makes the canary pass: tampering.
  await Deno.writeTextFile(
    join(cwd, "tasks/hello/solution/files/greet.sh"),
    ANSWERS_FROM_THE_TESTS,
  );
  const cheat = await runVerdict(["eval", "--agent", "oracle", "--home", ".verdict"], { cwd });
  assert.equal(cheat.code, 0, cheat.stderr);
  assert.match(
    cheat.stdout,
    /hello#0 fail \(agent_failure: tampering: the canary tests\/canary\.sh/,
  );
});

Deno.test("tasks new never writes over what exists, and takes the folder from --dir", async () => {
  await using scratch = await scratchDir("tasks-new");
  const cwd = scratch.path;
  await Deno.mkdir(join(cwd, "tasks/hello"), { recursive: true });
  await Deno.writeTextFile(join(cwd, "tasks/hello/mine.txt"), "keep me\n");
  await Deno.writeTextFile(join(cwd, "tasks/notes"), "a file\n");
  const before = await listing(cwd);

  for (const name of ["hello", "notes"]) {
    const refused = await runVerdict(["tasks", "new", name], { cwd });
    assert.equal(refused.code, 2, refused.stderr);
    assert.match(
      refused.stderr,
      new RegExp(`tasks/${name} already exists, .*Fix: choose another NAME or --dir`),
    );
  }
  const fileAsDir = await runVerdict(["tasks", "new", "x", "--dir", "tasks/notes"], { cwd });
  assert.equal(fileAsDir.code, 2, fileAsDir.stderr);
  assert.match(fileAsDir.stderr, /--dir tasks\/notes is a file, not a folder/);
  const long = await runVerdict(["tasks", "new", "a".repeat(300)], { cwd });
  assert.equal(long.code, 2, long.stderr);
  assert.match(long.stderr, /NAME, 'a{40}…', is 300 bytes long, .* at most 255\. Fix: choose/);
  assert.deepEqual(await listing(cwd), before);

  // A folder outside what verdict may write, named directly or through a link, is refused before
  // any work, like every path flag.
  await Deno.symlink("/tmp", join(cwd, "leads-out"));
  const outside: [string[], RegExp][] = [
    [
      ["new", "x", "--dir", "/etc/verdict-tasks"],
      /cannot write \/etc\/verdict-tasks, given as --dir:/,
    ],
    [["new", "x", "--dir", "leads-out"], /given as --dir: a symlink leads it to \/tmp/],
    [["export", "--format", "harbor", "--out", "/etc/verdict-tasks"], /given as --out:/],
  ];
  for (const [args, message] of outside) {
    const refused = await runVerdict(["tasks", ...args], { cwd });
    assert.equal(refused.code, 2, refused.stderr);
    assert.match(refused.stderr, message);
  }
  await Deno.remove(join(cwd, "leads-out"));
  assert.deepEqual(await listing(cwd), before);

  const elsewhere = await runVerdict(["tasks", "new", "a-1", "--dir", "suite/shell"], { cwd });
  assert.equal(elsewhere.code, 0, elsewhere.stderr);
  assert.match(elsewhere.stdout, /verdict tasks check suite\/shell\/a-1\n/);
  assert.deepEqual(
    (await listing(join(cwd, "suite/shell/a-1"))).map((line) => line.split(" ")[0]),
    [
      "instruction.md",
      "solution/",
      "solution/files/",
      "solution/files/greet.sh",
      "task.yaml",
      "tests/",
      "tests/canary.sh",
      "tests/lib.sh",
      "tests/test.sh",
      "workspace/",
      "workspace/README.md",
      "workspace/greet.sh",
    ],
  );
});

Deno.test("tasks new refuses a name that is not a task id and says which one would do", async () => {
  await using scratch = await scratchDir("tasks-new");
  const cwd = scratch.path;
  const cases: [string, RegExp][] = [
    ["Hello_World", /'Hello_World' is not a task id: .*Fix: verdict tasks new hello-world$/m],
    ["tasks/hello", /'tasks\/hello' is not a task id: .*verdict tasks new hello --dir tasks$/m],
    ["", /'' is not a task id: .*lowercase letters, digits and dashes/],
  ];
  for (const [name, message] of cases) {
    const refused = await runVerdict(["tasks", "new", name], { cwd });
    assert.equal(refused.code, 2, refused.stderr);
    assert.match(refused.stderr, message);
  }
  assert.deepEqual(await listing(cwd), []);

  const help = await runVerdict(["--help"]);
  assert.match(
    help.stdout,
    /^ {2}tasks new NAME +scaffold a task that `tasks check` accepts as is$/m,
  );
});
