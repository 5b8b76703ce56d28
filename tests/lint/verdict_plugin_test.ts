import assert from "node:assert/strict";
import { join } from "node:path";
import plugin from "../../lint/verdict_plugin.ts";
import { DETERMINISM_EXEMPT, LAYERS } from "../../lint/layers.ts";
import { layeredImports, type LayerTable } from "../../lint/layered_imports.ts";
import { copyTree, PROJECT_ROOT, scratchDir } from "../_verdict.ts";

function rulesFired(file: string, source: string): string[] {
  return Deno.lint.runPlugin(plugin, file, source).map((diagnostic) => diagnostic.id);
}

const NONDETERMINISM = "verdict/no-ambient-nondeterminism";
const LAYERING = "verdict/layered-imports";

Deno.test("every forbidden source of time or entropy fires under src/", () => {
  const forbidden = [
    "Date.now()",
    "new Date()",
    "Date()",
    "performance.now()",
    "Math.random()",
    "crypto.randomUUID()",
    "crypto.getRandomValues(new Uint8Array(8))",
    "globalThis.Date.now()",
    "new globalThis.Date()",
    "globalThis.Math.random()",
    "globalThis.performance.now()",
    "globalThis.crypto.randomUUID()",
    "globalThis.crypto.getRandomValues(new Uint8Array(8))",
    'globalThis["Math"]["random"]()',
    "const now = Date.now; now()",
    "const { random } = Math; random()",
  ];
  for (const expression of forbidden) {
    const source = `export function f(): void { ${expression}; }`;
    assert.deepEqual(rulesFired("src/agent/loop.ts", source), [NONDETERMINISM], expression);
  }
});

Deno.test("allowed forms, files outside src/ and the exempt module do not fire", () => {
  const allowed = [
    "new Date(0)",
    "new Date(clock.now())",
    "Date.parse('2020-01-01')",
    "Math.floor(1.5)",
    "clock.now()",
    "rng.nextFloat()",
    "crypto.subtle",
  ];
  for (const expression of allowed) {
    assert.deepEqual(
      rulesFired("src/agent/loop.ts", `export const x = ${expression};`),
      [],
      expression,
    );
  }
  assert.deepEqual(
    rulesFired(DETERMINISM_EXEMPT, "export const now = () => Date.now() + performance.now();"),
    [],
  );
  assert.deepEqual(rulesFired("tests/agent/loop_test.ts", "export const t = Date.now();"), []);
  assert.deepEqual(rulesFired("cli.ts", "export const t = Math.random();"), []);
  assert.deepEqual(
    rulesFired(join(PROJECT_ROOT, DETERMINISM_EXEMPT), "export const t = Date.now();"),
    [],
  );
  assert.deepEqual(
    rulesFired(join(PROJECT_ROOT, "src/store/x.ts"), "export const t = Date.now();"),
    [NONDETERMINISM],
  );
});

Deno.test("imports may go down the layer map or within a folder, never up or sideways", () => {
  assert.deepEqual(rulesFired("src/agent/loop.ts", 'import { x } from "../core/hash.ts";'), []);
  assert.deepEqual(rulesFired("src/agent/loop.ts", 'import { x } from "./context.ts";'), []);
  assert.deepEqual(rulesFired("src/eval/runner.ts", 'import { x } from "../agent/loop.ts";'), []);
  assert.deepEqual(rulesFired("src/core/hash.ts", 'import { x } from "npm:zod";'), []);
  const upward = [
    ["src/core/ids.ts", 'import { x } from "../store/store.ts";'],
    ["src/store/store.ts", 'import { runEval } from "../eval/runner.ts";'],
    ["src/core/clock.ts", 'export { loop } from "../agent/loop.ts";'],
    ["src/store/x.ts", 'export * from "../cli/main.ts";'],
    ["src/core/x.ts", 'const m = await import("../agent/loop.ts");'],
    ["src/engine/docker.ts", 'import { x } from "../model/scripted.ts";'],
    ["src/store/x.ts", 'import { main } from "../../cli.ts";'],
    ["src/newfolder/x.ts", 'import { x } from "../core/hash.ts";'],
  ];
  for (const [file, source] of upward) {
    assert.deepEqual(rulesFired(file, source), [LAYERING], `${file}: ${source}`);
  }
});

Deno.test("the engine imports only core; the workspace uses the engine, the store and tasks", () => {
  assert.deepEqual(rulesFired("src/engine/x.ts", 'import { x } from "../core/hash.ts";'), []);
  for (const below of ["engine", "store", "task", "core"]) {
    const source = `import type { x } from "../${below}/z.ts";`;
    assert.deepEqual(rulesFired("src/workspace/y.ts", source), [], below);
  }
  const engineImports = [
    'import type { Workspace } from "../workspace/y.ts";',
    'import { openStore } from "../store/z.ts";',
    'import { loadTask } from "../task/t.ts";',
    'import { runEval } from "../eval/run_eval.ts";',
  ];
  for (const source of engineImports) {
    assert.deepEqual(rulesFired("src/engine/x.ts", source), [LAYERING], source);
  }
  assert.deepEqual(
    rulesFired("src/engine/x.ts", engineImports.slice(0, 2).join("\n")),
    [LAYERING, LAYERING],
  );
});

function nestedFired(table: LayerTable, file: string, source: string): string[] {
  const nested: Deno.lint.Plugin = {
    name: "verdict",
    rules: { "layered-imports": layeredImports(table) },
  };
  return Deno.lint.runPlugin(nested, file, source).map((diagnostic) => diagnostic.message);
}

Deno.test("a nested key ranks the subfolders of one folder: the longest key covering a file wins", () => {
  const table = { core: 0, agent: 4, eval: 6, "eval/setup": 7, "eval/trial": 8, "eval/run": 9 };
  const allowed = [
    ["src/eval/run/a.ts", 'import { t } from "../trial/b.ts";'],
    ["src/eval/trial/b.ts", 'import type { S } from "../setup/c.ts";'],
    ["src/eval/trial/b.ts", 'import { x } from "../shared.ts";'],
    ["src/eval/trial/b.ts", 'import { x } from "../../agent/loop.ts";'],
    ["src/eval/trial/phases/d.ts", 'import { x } from "../b.ts";'],
    ["src/eval/trial/b.ts", 'import { x } from "./phases/d.ts";'],
    ["src/eval/other/e.ts", 'import { x } from "../shared.ts";'],
  ];
  for (const [file, source] of allowed) {
    assert.deepEqual(nestedFired(table, file, source), [], `${file}: ${source}`);
  }
  const refused = [
    ["src/eval/trial/b.ts", 'import { r } from "../run/a.ts";', "eval/trial (layer 8)"],
    ["src/eval/setup/c.ts", 'export type { T } from "../trial/b.ts";', "eval/setup (layer 7)"],
    ["src/eval/shared.ts", 'import { t } from "./trial/b.ts";', "src/eval (layer 6)"],
    ["src/eval/trial/phases/d.ts", 'await import("../../run/a.ts");', "eval/run (layer 9)"],
    ["src/agent/loop.ts", 'import { s } from "../eval/setup/c.ts";', "eval/setup (layer 7)"],
  ];
  for (const [file, source, named] of refused) {
    const messages = nestedFired(table, file, source);
    assert.equal(messages.length, 1, `${file}: ${source}`);
    assert.ok(messages[0].includes(named), messages[0]);
  }
});

Deno.test("the layer map puts the low layers below the agent loop, the runner and the CLI", () => {
  for (const low of ["core", "store"]) {
    for (const high of ["agent", "eval", "cli"]) {
      assert.ok(LAYERS[low] < LAYERS[high], `${low} < ${high}`);
    }
  }
});

async function lintTreeWith(
  file: string,
  source: string,
): Promise<{ code: number; output: string }> {
  await using dir = await scratchDir("lint");
  for (const path of ["deno.json", "deno.lock", "lint", "src"]) {
    await copyTree(join(PROJECT_ROOT, path), join(dir.path, path));
  }
  await Deno.writeTextFile(join(dir.path, file), source);
  const output = await new Deno.Command("deno", {
    args: ["lint"],
    cwd: dir.path,
    env: { NO_COLOR: "1" },
  }).output();
  const decoder = new TextDecoder();
  return {
    code: output.code,
    output: decoder.decode(output.stdout) + decoder.decode(output.stderr),
  };
}

Deno.test("deno lint fails on Date.now() in src/, an upward import and an oversized file or function, and passes the tree as is", async () => {
  const clean = await lintTreeWith("src/core/extra.ts", "export const one = 1;\n");
  assert.deepEqual(clean.code, 0, clean.output);
  const clock = await lintTreeWith(
    "src/store/stamp.ts",
    "export const stamp = (): number => Date.now();\n",
  );
  assert.deepEqual(clock.code, 1);
  assert.ok(clock.output.includes(NONDETERMINISM), clock.output);
  const upward = await lintTreeWith(
    "src/core/upward.ts",
    'export { verifyCommand } from "../cli/commands/verify.ts";\n',
  );
  assert.deepEqual(upward.code, 1);
  assert.ok(upward.output.includes(LAYERING), upward.output);
  const oversized = await lintTreeWith(
    "src/core/oversized.ts",
    `export function long(): void {\n${"  work();\n".repeat(79)}}\n` +
      "export const x = 1;\n".repeat(320),
  );
  assert.deepEqual(oversized.code, 1);
  assert.ok(oversized.output.includes("verdict/max-file-lines"), oversized.output);
  assert.ok(oversized.output.includes("verdict/max-function-lines"), oversized.output);
  assert.ok(oversized.output.includes("function long has 81 lines"), oversized.output);
});
