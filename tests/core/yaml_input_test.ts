import assert from "node:assert/strict";
import { join } from "node:path";
import { InputError } from "../../src/core/errors.ts";
import { parseYamlInput } from "../../src/core/yaml_input.ts";
import { minimalTask, writeFiles } from "../task/_task_fixture.ts";
import { runVerdict, scratchDir } from "../_verdict.ts";

/** Nine levels of nine aliases each: 9^9 (387 million) values once expanded. */
function aliasBomb(): string {
  const lines = ['l0: &l0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]'];
  for (let level = 1; level <= 9; level++) {
    lines.push(`l${level}: &l${level} [${Array(9).fill(`*l${level - 1}`).join(", ")}]`);
  }
  return lines.join("\n") + "\n";
}

Deno.test("an alias bomb is bad input naming the file, found at once", () => {
  const started = performance.now();
  assert.throws(
    () => parseYamlInput(aliasBomb(), "bomb.yaml"),
    (error) =>
      error instanceof InputError && error.exitCode === 2 &&
      /^bomb\.yaml: not valid YAML: its aliases expand too far .*\. Fix: /.test(error.message),
  );
  assert.ok(performance.now() - started < 5_000);
});

Deno.test("an alias to no anchor is bad input naming the file", () => {
  assert.throws(
    () => parseYamlInput("a: *nowhere\n", "x.yaml"),
    (error) =>
      error instanceof InputError &&
      /^x\.yaml: not valid YAML: Unresolved alias/.test(error.message),
  );
});

Deno.test("a few aliases still load", () => {
  assert.deepEqual(parseYamlInput("a: &a [1, 2]\nb: [*a, *a]\n", "x.yaml"), {
    a: [1, 2],
    b: [[1, 2], [1, 2]],
  });
});

Deno.test("an alias bomb in a task, a policy or a gate is exit 2 naming the file, never an internal error", async () => {
  await using dir = await scratchDir("bomb");
  const task = join(dir.path, "bomb-task");
  await writeFiles(task, minimalTask("bomb-task"));
  await Deno.writeTextFile(
    join(task, "task.yaml"),
    minimalTask("bomb-task")["task.yaml"] + aliasBomb(),
  );
  const policyTask = join(dir.path, "policy-task");
  await writeFiles(policyTask, { ...minimalTask("policy-task"), "policy.yaml": aliasBomb() });
  await Deno.writeTextFile(
    join(policyTask, "task.yaml"),
    minimalTask("policy-task")["task.yaml"] + "policy: policy.yaml\n",
  );
  const gate = join(dir.path, "gate.yaml");
  await Deno.writeTextFile(gate, "max_drop_pp: 5\n" + aliasBomb());
  const home = join(dir.path, "home");
  const cases: [string[], string][] = [
    [["tasks", "list", task], join(task, "task.yaml")],
    [["eval", policyTask, "--home", home], join(policyTask, "policy.yaml")],
    [["compare", "a", "b", "--gate", gate, "--home", home], gate],
  ];
  for (const [args, file] of cases) {
    const result = await runVerdict(args);
    assert.equal(result.code, 2, `${args.join(" ")}: ${result.stderr}`);
    assert.ok(result.stderr.includes(`${file}: not valid YAML: its aliases expand too far`));
    assert.doesNotMatch(result.stderr, /internal error|ReferenceError/);
  }
});
