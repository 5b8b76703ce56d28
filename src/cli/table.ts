/**
 * Plain-text tables for terminal output.
 *
 * @module
 */

/**
 * Formats rows under a header, columns padded to their widest cell.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { table } from "./table.ts";
 * assert(table(["a", "bb"], [["xyz", "1"]]) === "a    bb\nxyz  1\n");
 * ```
 */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((cell, column) =>
    Math.max(cell.length, ...rows.map((row) => (row[column] ?? "").length))
  );
  const line = (row: readonly string[]) =>
    row.map((cell, column) => column === row.length - 1 ? cell : cell.padEnd(widths[column])).join(
      "  ",
    );
  return [header, ...rows].map(line).join("\n") + "\n";
}
