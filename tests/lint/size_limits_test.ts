import assert from "node:assert/strict";
import { join } from "node:path";
import {
  type FileDebt,
  type FunctionDebt,
  MAX_FILE_LINES,
  MAX_FUNCTION_LINES,
  maxFileLines,
  maxFunctionLines,
} from "../../lint/size_limits.ts";
import { FILE_DEBT, FUNCTION_DEBT } from "../../lint/size_debt.ts";
import { PROJECT_ROOT } from "../_verdict.ts";

function sizePlugin(files: FileDebt[] = [], functions: FunctionDebt[] = []): Deno.lint.Plugin {
  return {
    name: "verdict",
    rules: {
      "max-file-lines": maxFileLines(files),
      "max-function-lines": maxFunctionLines(functions),
    },
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

Deno.test("a debt entry is skipped while it does not grow past its listed size", () => {
  const file = "src/agent/big.ts";
  const debt = sizePlugin([{ path: file, lines: 500 }], [{ path: file, name: "f", lines: 90 }]);
  const source = (fn: number, padding: number) =>
    `export function f() {${body(fn)}}\n` + "export const x = 1;\n".repeat(padding);
  assert.deepEqual(messages(file, source(90, 400), debt), []);
  assert.deepEqual(messages("src/agent/other.ts", source(90, 0), debt), [
    "function f has 90 lines, over the limit of 80",
  ]);
  assert.deepEqual(messages(file, source(91, 410), debt), [
    "src/agent/big.ts has 501 lines, over the limit of 400 and past its 500 in " +
    "lint/size_debt.ts (a listed size may only shrink)",
    "function f has 91 lines, over the limit of 80 and past its 90 in lint/size_debt.ts " +
    "(a listed size may only shrink)",
  ]);
});

Deno.test("every entry of lint/size_debt.ts is still over its limit (delete an entry once it is paid)", async () => {
  const fired = new Map<string, string[]>();
  for (const path of new Set([...FILE_DEBT, ...FUNCTION_DEBT].map((entry) => entry.path))) {
    const source = await Deno.readTextFile(join(PROJECT_ROOT, path)).catch(() => undefined);
    assert.ok(
      source !== undefined,
      `${path} is gone: delete or move its entries in lint/size_debt.ts`,
    );
    fired.set(path, messages(path, source));
  }
  for (const { path } of FILE_DEBT) {
    const over = fired.get(path)!.some((message) => message.startsWith(`${path} has `));
    assert.ok(over, `${path} is no longer over ${MAX_FILE_LINES} lines: delete its entry`);
  }
  for (const { path, name } of FUNCTION_DEBT) {
    const over = fired.get(path)!.some((message) => message.startsWith(`function ${name} has `));
    assert.ok(
      over,
      `${path}: ${name} is no longer over ${MAX_FUNCTION_LINES} lines: delete its entry`,
    );
  }
  const keys = FUNCTION_DEBT.map(({ path, name }) => `${path} ${name}`);
  assert.equal(new Set(keys).size, keys.length, "a function is listed twice");
});
