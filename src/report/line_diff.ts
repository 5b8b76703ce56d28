/**
 * A unified line diff, for showing what an agent changed in a text file.
 *
 * @module
 */

const MAX_CELLS = 4_000_000;

/**
 * The unified diff of two texts (hunks with three lines of context), or a one-line note when the
 * files are too large to diff here.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { unifiedDiff } from "./line_diff.ts";
 * const diff = unifiedDiff("a\nb\nc\n", "a\nB\nc\n").split("\n");
 * assert(diff.includes("-b") && diff.includes("+B"));
 * ```
 */
export function unifiedDiff(before: string, after: string, context = 3): string {
  const a = before.split("\n");
  const b = after.split("\n");
  if (a.length * b.length > MAX_CELLS) {
    return `(too large to diff: ${a.length} and ${b.length} lines)`;
  }
  // Longest common subsequence table, filled from the end.
  const width = b.length + 1;
  const table = new Uint32Array((a.length + 1) * width);
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      table[i * width + j] = a[i] === b[j]
        ? table[(i + 1) * width + j + 1] + 1
        : Math.max(table[(i + 1) * width + j], table[i * width + j + 1]);
    }
  }
  const ops: { kind: " " | "-" | "+"; line: string; oldLine: number; newLine: number }[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      ops.push({ kind: " ", line: a[i++], oldLine: i, newLine: ++j });
    } else if (
      j < b.length && (i === a.length || table[i * width + j + 1] >= table[(i + 1) * width + j])
    ) {
      ops.push({ kind: "+", line: b[j++], oldLine: i, newLine: j });
    } else ops.push({ kind: "-", line: a[i++], oldLine: i, newLine: j });
  }
  const hunks: string[] = [];
  for (let index = 0; index < ops.length;) {
    if (ops[index].kind === " ") {
      index++;
      continue;
    }
    const start = Math.max(0, index - context);
    let end = index;
    while (end < ops.length) {
      if (ops[end].kind !== " ") end++;
      else {
        let run = end;
        while (run < ops.length && ops[run].kind === " ") run++;
        if (run - end > 2 * context || run === ops.length) {
          end = Math.min(ops.length, end + context);
          break;
        }
        end = run;
      }
    }
    const hunk = ops.slice(start, end);
    hunks.push(
      `@@ -${hunk[0].oldLine} +${hunk[0].newLine} @@\n${
        hunk.map((op) => `${op.kind}${op.line}`).join("\n")
      }`,
    );
    index = end;
  }
  return hunks.join("\n");
}
