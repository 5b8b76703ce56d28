import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import {
  circleWalk,
  importCircles,
  importSpecifiers,
  stronglyConnected,
} from "../../lint/import_circles.ts";
import { PROJECT_ROOT, scratchDir } from "../_verdict.ts";

Deno.test("every form of import and re-export counts; comments, strings and templates do not", () => {
  const source = [
    'import { a } from "./a.ts";',
    'import type { B } from "./b.ts";',
    'import "./c.ts";',
    'import d, * as e from "./d.ts";',
    'import {\n  type F,\n  from,\n} from "./f.ts";',
    'export { g } from "./g.ts";',
    'export type { H } from "./h.ts";',
    'export * as i from "./i.ts";',
    "const j = await import('./j.ts');",
    'type K = typeof import("./k.ts");',
    'import { l } from "npm:zod";',
    "// import { x } from './comment.ts';",
    '/** @example\n * import { y } from "./jsdoc.ts";\n */',
    "const s = \"import { z } from './string.ts'\";",
    "const t = `export * from './template.ts' ${import.meta.url}`;",
    'const m = `${`${import("./nested.ts")}`}`;',
    'const r = /import "\\.\\/regex.ts"/.test(s) ? 1 : 2 / 3;',
    "const dynamic = await import(`./${name}.ts`);",
    'export const from = "./not_a_specifier.ts";',
    "export function load(path: string) { return import(path); }",
    'obj.import("./method.ts");',
  ].join("\n");
  assert.deepEqual(importSpecifiers(source), [
    "./a.ts",
    "./b.ts",
    "./c.ts",
    "./d.ts",
    "./f.ts",
    "./g.ts",
    "./h.ts",
    "./i.ts",
    "./j.ts",
    "./k.ts",
    "npm:zod",
    "./nested.ts",
  ]);
});

Deno.test("Tarjan finds each circle once, a self-import too, and the walk passes every file", () => {
  const graph = new Map([
    ["a", ["b"]],
    ["b", ["c", "d"]],
    ["c", ["a"]],
    ["d", ["b", "e"]],
    ["e", []],
    ["f", ["f", "a"]],
  ]);
  assert.deepEqual(stronglyConnected(graph), [["a", "b", "c", "d"], ["f"]]);
  assert.deepEqual(circleWalk(graph, ["a", "b", "c", "d"]), ["b", "c", "a", "b", "d", "b"]);
  const chorded = new Map([
    ["a", ["b", "c", "e"]],
    ["b", ["c"]],
    ["c", ["d"]],
    ["d", ["a", "e"]],
    ["e", ["b"]],
  ]);
  const members = ["a", "b", "c", "d", "e"];
  assert.deepEqual(circleWalk(chorded, members), ["b", "c", "d", "a", "e", "b"]);
  assert.deepEqual(circleWalk(graph, ["f"]), ["f", "f"]);
  assert.deepEqual(stronglyConnected(new Map([["a", ["b"]], ["b", []]])), []);
});

async function plant(root: string, files: Record<string, string>): Promise<void> {
  for (const [path, source] of Object.entries(files)) {
    await Deno.mkdir(join(root, dirname(path)), { recursive: true });
    await Deno.writeTextFile(join(root, path), source);
  }
}

Deno.test("circles planted in a tree are found through every kind of edge, import type alone too", async () => {
  await using dir = await scratchDir("circles");
  await plant(dir.path, {
    "src/types/a.ts": 'import type { B } from "./b.ts";\nexport type A = { b?: B };\n',
    "src/types/b.ts": 'import type { A } from "./a.ts";\nexport type B = { a?: A };\n',
    "src/reexport/c.ts": 'export { d } from "../dynamic/d.ts";\nexport const c = 1;\n',
    "src/dynamic/d.ts": 'export type { E } from "../reexport/e.ts";\nexport const d = 1;\n',
    "src/reexport/e.ts": 'export type E = 1;\nexport const load = () => import("./c.ts");\n',
    "src/clean/f.ts": 'import { g } from "./g.ts";\n// import "./f.ts"\nexport const f = g;\n',
    "src/clean/g.ts": 'import "../types/a.ts";\nexport const g = 1;\n',
    "src/notes.md": 'import "./clean/f.ts"\n',
  });
  assert.deepEqual(await importCircles(dir.path), [
    ["src/dynamic/d.ts", "src/reexport/e.ts", "src/reexport/c.ts", "src/dynamic/d.ts"],
    ["src/types/a.ts", "src/types/b.ts", "src/types/a.ts"],
  ]);
});

async function runArch(cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const script = join(PROJECT_ROOT, "lint", "import_circles.ts");
  const output = await new Deno.Command("deno", {
    args: ["run", "--allow-read=src", "--quiet", script],
    cwd,
    env: { NO_COLOR: "1" },
  }).output();
  const decoder = new TextDecoder();
  return {
    code: output.code,
    stdout: decoder.decode(output.stdout),
    stderr: decoder.decode(output.stderr),
  };
}

Deno.test("deno task arch's script exits 1 printing each circle with a hint, 0 on a clean tree", async () => {
  await using dir = await scratchDir("arch");
  await plant(dir.path, {
    "src/a.ts": 'import { b } from "./b.ts";\nexport const a = b;\n',
    "src/b.ts": "export const b = 1;\n",
  });
  const clean = await runArch(dir.path);
  assert.deepEqual([clean.code, clean.stdout, clean.stderr], [0, "src/: no import circle\n", ""]);
  await plant(dir.path, {
    "src/b.ts": 'import type { A } from "./sub/c.ts";\nexport const b = 1;\n',
    "src/sub/c.ts": 'import type { a } from "../a.ts";\nexport type A = typeof a;\n',
  });
  const circled = await runArch(dir.path);
  assert.equal(circled.code, 1, circled.stderr);
  const lines = circled.stderr.split("\n");
  assert.deepEqual(lines.slice(0, 2), [
    "src/ has 1 import circle:",
    "  src/a.ts → src/b.ts → src/sub/c.ts → src/a.ts",
  ]);
  assert.ok(lines[2].startsWith("hint: "), circled.stderr);
});
