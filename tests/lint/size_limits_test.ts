import assert from "node:assert/strict";
import { join } from "node:path";
import {
  MAX_FILE_LINES,
  MAX_FUNCTION_LINES,
  maxFileLines,
  maxFunctionLines,
} from "../../lint/size_limits.ts";
import { PROJECT_ROOT } from "../_verdict.ts";

function sizePlugin(): Deno.lint.Plugin {
  return {
    name: "verdict",
    rules: { "max-file-lines": maxFileLines(), "max-function-lines": maxFunctionLines() },
  };
}

function messages(file: string, source: string, plugin = sizePlugin()): string[] {
  return Deno.lint.runPlugin(plugin, file, source).map((diagnostic) => diagnostic.message);
}

/** A body of `lines - 2` statements: with its opening and closing lines, `lines` in all. */
function body(lines: number): string {
  return "\n" + "  work();\n".repeat(lines - 2);
}

Deno.test("a file over 400 lines fires, naming its count and the limit; 400 does not", () => {
  const line = "export const x = 1;\n";
  assert.deepEqual(messages("src/core/ok.ts", line.repeat(MAX_FILE_LINES)), []);
  assert.deepEqual(messages("src/core/big.ts", line.repeat(MAX_FILE_LINES + 1)), [
    "src/core/big.ts has 401 lines, over the limit of 400",
  ]);
  assert.deepEqual(messages("tests/core/big_test.ts", line.repeat(900)), []);
  assert.deepEqual(messages("cli.ts", line.repeat(900)), []);
});

Deno.test("every kind of function over 80 lines fires, with a hint; 80 lines does not", () => {
  const fired = (source: string) => messages("src/agent/f.ts", source);
  assert.deepEqual(fired(`export function f() {${body(80)}}\n`), []);
  const kinds: [string, string][] = [
    [`export function f() {${body(81)}}`, "f"],
    [`export const g = function () {${body(81)}};`, "g"],
    [`export const h = async (x: number) => {${body(81)}};`, "h"],
    [`export class Box {\n  open(): void {${body(81)}}\n}`, "Box.open"],
    [`export class Box {\n  static get size(): number {${body(81)}}\n}`, "Box.size"],
    [`export class Box {\n  run = () => {${body(81)}};\n}`, "Box.run"],
    [`export const command = {\n  async run() {${body(81)}},\n};`, "command.run"],
    [`export const command = {\n  run: () => {${body(81)}},\n};`, "command.run"],
    [`export default function () {${body(81)}}`, "default"],
    [`[1].map((n) => {${body(81)}});`, "(anonymous)"],
  ];
  for (const [source, name] of kinds) {
    assert.deepEqual(fired(source), [`function ${name} has 81 lines, over the limit of 80`]);
  }
  const [diagnostic] = Deno.lint.runPlugin(sizePlugin(), "src/a/f.ts", kinds[0][0]);
  assert.equal(diagnostic.hint, "split it into named steps");
  assert.deepEqual(messages("tests/agent/f_test.ts", kinds[0][0]), []);
});

Deno.test("a nested function counts within its parent's span, and fires on its own", () => {
  const inner = `  const step = () => {${body(81)}};\n`;
  const source = `export function outer() {\n${inner}  return { run() {${
    body(MAX_FUNCTION_LINES)
  }} };\n}`;
  assert.deepEqual(messages("src/agent/f.ts", source), [
    "function outer has 163 lines, over the limit of 80",
    "function outer.step has 81 lines, over the limit of 80",
  ]);
});

Deno.test("every file and function under src/ holds to the limits", async () => {
  const over: string[] = [];
  for await (const path of sourceFiles(join(PROJECT_ROOT, "src"))) {
    const project = path.slice(PROJECT_ROOT.length + 1);
    over.push(...messages(project, await Deno.readTextFile(path)));
  }
  assert.deepEqual(over, [], "split these into named steps");
});

async function* sourceFiles(folder: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(folder)) {
    const path = join(folder, entry.name);
    if (entry.isDirectory) yield* sourceFiles(path);
    else if (entry.name.endsWith(".ts")) yield path;
  }
}
