/**
 * A unified line diff, for showing what an agent changed in a text file: the hunks `diff -u`
 * prints (without the two file-name lines), which `patch` applies: each hunk's header counts its
 * old and new lines, removed lines come before the lines that replace them, and a last line without
 * a line break is marked `\ No newline at end of file`.
 *
 * @module
 */

const MAX_CELLS = 4_000_000;
const NO_NEWLINE = "\\ No newline at end of file";

interface Line {
  /** The text, without its line break. */
  text: string;
  /** Whether it is the file's last line and has no line break. */
  open: boolean;
}

interface Op {
  kind: " " | "-" | "+";
  line: Line;
  /** How many old and new lines come before it. */
  old: number;
  new: number;
}

/**
 * The unified diff of two texts (hunks with `context` lines of context), or a one-line note when
 * the files are too large to diff here; empty when they are equal.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { unifiedDiff } from "./line_diff.ts";
 * assert.equal(unifiedDiff("a\nb\nc\n", "a\nB\nc\n"), "@@ -1,3 +1,3 @@\n a\n-b\n+B\n c");
 * ```
 */
export function unifiedDiff(before: string, after: string, context = 3): string {
  const a = lines(before);
  const b = lines(after);
  if (a.length * b.length > MAX_CELLS) {
    return `(too large to diff: ${a.length} and ${b.length} lines)`;
  }
  const ops = editScript(a, b);
  const changed = ops.flatMap((op, index) => op.kind === " " ? [] : [index]);
  const hunks: string[] = [];
  for (let k = 0; k < changed.length;) {
    const start = Math.max(0, changed[k] - context);
    let last = changed[k++];
    while (k < changed.length && changed[k] - last - 1 <= 2 * context) last = changed[k++];
    hunks.push(hunk(ops.slice(start, Math.min(ops.length, last + 1 + context))));
  }
  return hunks.join("\n");
}

function lines(text: string): Line[] {
  if (text === "") return [];
  const parts = text.split("\n");
  const open = parts.at(-1) !== "";
  if (!open) parts.pop();
  return parts.map((part, index) => ({ text: part, open: open && index === parts.length - 1 }));
}

const same = (x: Line, y: Line) => x.text === y.text && x.open === y.open;

// The longest-common-subsequence edit script; where it may either remove or add, it removes first.
function editScript(a: Line[], b: Line[]): Op[] {
  const width = b.length + 1;
  const table = new Uint32Array((a.length + 1) * width);
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      table[i * width + j] = same(a[i], b[j])
        ? table[(i + 1) * width + j + 1] + 1
        : Math.max(table[(i + 1) * width + j], table[i * width + j + 1]);
    }
  }
  const ops: Op[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && same(a[i], b[j])) {
      ops.push({ kind: " ", line: a[i], old: i++, new: j++ });
    } else if (
      i < a.length && (j === b.length || table[(i + 1) * width + j] >= table[i * width + j + 1])
    ) {
      ops.push({ kind: "-", line: a[i], old: i++, new: j });
    } else ops.push({ kind: "+", line: b[j], old: i, new: j++ });
  }
  return ops;
}

// One hunk: `@@ -start,count +start,count @@` (a count of 1 left out, as diff does; an empty side
// starts at the line before it) and its lines.
function hunk(ops: Op[]): string {
  const range = (side: "old" | "new", skip: Op["kind"]) => {
    const count = ops.filter((op) => op.kind !== skip).length;
    const start = count === 0 ? ops[0][side] : ops.find((op) => op.kind !== skip)![side] + 1;
    return count === 1 ? `${start}` : `${start},${count}`;
  };
  const body = ops.map((op) => `${op.kind}${op.line.text}${op.line.open ? `\n${NO_NEWLINE}` : ""}`);
  return `@@ -${range("old", "+")} +${range("new", "-")} @@\n${body.join("\n")}`;
}
