import assert from "node:assert/strict";
import { join } from "node:path";
import plugin from "../../lint/verdict_plugin.ts";
import { DETERMINISM_EXEMPT, LAYERS } from "../../lint/layers.ts";
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
    ["src/sandbox/docker.ts", 'import { x } from "../model/scripted.ts";'],
    ["src/store/x.ts", 'import { main } from "../../cli.ts";'],
    ["src/newfolder/x.ts", 'import { x } from "../core/hash.ts";'],
  ];
  for (const [file, source] of upward) {
    assert.deepEqual(rulesFired(file, source), [LAYERING], `${file}: ${source}`);
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

Deno.test("deno lint fails on Date.now() in src/ and on an upward import, and passes the tree as is", async () => {
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
});
