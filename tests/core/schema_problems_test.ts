import assert from "node:assert/strict";
import { z } from "zod";
import { schemaProblems } from "../../src/core/schema_problems.ts";
import { parseYamlInput } from "../../src/core/yaml_input.ts";

const SCHEMA = z.strictObject({
  ratio: z.number().gt(0).lt(1).optional(),
  steps: z.number().int().min(1).max(50).optional(),
  mode: z.enum(["fast", "slow"]).optional(),
  name: z.string().min(1).optional(),
  paths: z.array(z.string()).min(2).optional(),
});

function messages(yaml: string): string[] {
  const parsed = SCHEMA.safeParse(parseYamlInput(yaml, "f.yaml"), { reportInput: true });
  assert.ok(!parsed.success, "the input was accepted");
  return schemaProblems("f.yaml", SCHEMA, parsed.error.issues).map((problem) =>
    `${problem.field}: ${problem.problem}. Fix: ${problem.fix}`
  );
}

Deno.test("numbers YAML cannot hold say so, not 'got number null'", () => {
  assert.deepEqual(messages("steps: 1e400\n"), [
    "steps: expected a number, got a number too large to represent (infinity). " +
    "Fix: write a finite number here",
  ]);
  assert.deepEqual(messages("steps: .nan\n"), [
    "steps: expected a number, got not-a-number (.nan). Fix: write a finite number here",
  ]);
  assert.deepEqual(messages("steps: -.inf\n"), [
    "steps: expected a number, got a number too large to represent (infinity). " +
    "Fix: write a finite number here",
  ]);
});

Deno.test("bounds name the bound the schema has: above, below, at least, at most", () => {
  assert.deepEqual(messages("ratio: 0\n"), [
    "ratio: must be above 0, got number 0. Fix: use a value above 0",
  ]);
  assert.deepEqual(messages("ratio: 1\n"), [
    "ratio: must be below 1, got number 1. Fix: use a value below 1",
  ]);
  assert.deepEqual(messages("steps: 0\n"), [
    "steps: must be at least 1, got number 0. Fix: use a value of at least 1",
  ]);
  assert.deepEqual(messages("steps: 51\n"), [
    "steps: must be at most 50, got number 51. Fix: use a value of at most 50",
  ]);
  assert.deepEqual(messages("steps: 1.5\n"), [
    "steps: expected a whole number, got number 1.5. Fix: write a whole number here",
  ]);
  assert.deepEqual(messages("name: ''\n"), [
    "name: must not be empty. Fix: give at least one character",
  ]);
  assert.deepEqual(messages("paths: [a]\n"), [
    "paths: must have at least 2 items. Fix: give at least 2 items",
  ]);
});

Deno.test("a missing choice says it is missing, not 'undefined undefined'", () => {
  const schema = z.strictObject({ action: z.enum(["allow", "deny"]) });
  const parsed = schema.safeParse({}, { reportInput: true });
  const [problem] = schemaProblems("p.yaml", schema, parsed.error!.issues);
  assert.equal(problem.problem, "is missing");
  assert.equal(problem.fix, "add it, one of: allow, deny");
});
