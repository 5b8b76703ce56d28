/**
 * The `verdict/layered-imports` rule: under `src/`, a file imports only from its own layer and
 * from layers of a strictly lower rank (the table is `LAYERS` in `lint/layers.ts`).
 *
 * A table key is a folder under `src/`, or a nested folder (`eval/trial`); a file belongs to the
 * longest key that is a prefix of its folder, so a table can rank the subfolders of one folder
 * against each other. Ranks are one scale: `eval/trial` compares with `agent` as `eval` does.
 *
 * @module
 */
import { dirname, join, normalize } from "node:path";
import { inSrc, projectPath } from "./_project_path.ts";

/** Folder under `src/` (or nested folder, `eval/trial`) → rank. */
export type LayerTable = Readonly<Record<string, number>>;

const HINT = "move the shared code down a layer, or pass it in as a parameter (lint/layers.ts)";

/**
 * The table key a file under `src/` belongs to: the longest key that is its folder or a parent
 * of it; undefined when no key covers it.
 *
 * @example
 * ```ts
 * import { layerKey } from "./layered_imports.ts";
 * const table = { eval: 6, "eval/trial": 7 };
 * console.assert(layerKey(table, "src/eval/trial/phases/start.ts") === "eval/trial");
 * console.assert(layerKey(table, "src/eval/run.ts") === "eval");
 * ```
 */
export function layerKey(table: LayerTable, path: string): string | undefined {
  const folder = dirname(path).slice("src/".length);
  let best: string | undefined;
  for (const key of Object.keys(table)) {
    const covers = folder === key || folder.startsWith(`${key}/`);
    if (covers && (best === undefined || key.length > best.length)) best = key;
  }
  return best;
}

/**
 * Why an import from `from` (a file under `src/`) of `target` (a project path) breaks the table,
 * or undefined when it may import it.
 *
 * @example
 * ```ts
 * import { layerViolation } from "./layered_imports.ts";
 * const table = { core: 0, store: 1 };
 * console.assert(layerViolation(table, "src/store/a.ts", "src/core/b.ts") === undefined);
 * console.assert(layerViolation(table, "src/core/b.ts", "src/store/a.ts") !== undefined);
 * ```
 */
export function layerViolation(
  table: LayerTable,
  from: string,
  target: string,
): string | undefined {
  const key = layerKey(table, from);
  if (key === undefined) {
    return `${_folderName(from)} is not in the layer map; add the folder to lint/layers.ts`;
  }
  if (!inSrc(target)) {
    return `src/${key} imports ${target}, outside src/: library code must not reach up into ` +
      `the entry points`;
  }
  const targetKey = layerKey(table, target);
  if (targetKey === undefined) {
    return `src/${key} imports from ${_folderName(target)}, which is not in the layer map`;
  }
  if (targetKey === key || table[targetKey] < table[key]) return undefined;
  return `src/${key} (layer ${table[key]}) may not import src/${targetKey} ` +
    `(layer ${table[targetKey]}): imports go only to lower layers`;
}

function _folderName(path: string): string {
  const folder = dirname(path);
  return folder === "src" ? "src/(top level)" : folder;
}

/**
 * The rule over a table; the plugin passes `LAYERS`, tests pass their own.
 *
 * @example
 * ```ts
 * import { layeredImports } from "./layered_imports.ts";
 * const rule: Deno.lint.Rule = layeredImports({ core: 0, store: 1 });
 * console.assert(typeof rule.create === "function");
 * ```
 */
export function layeredImports(table: LayerTable): Deno.lint.Rule {
  return {
    create(context) {
      const path = projectPath(context.filename);
      if (!inSrc(path)) return {};
      const check = (node: Deno.lint.Node, specifier: unknown) => {
        if (typeof specifier !== "string" || !specifier.startsWith(".")) return;
        const target = normalize(join(dirname(path), specifier)).replaceAll("\\", "/");
        const message = layerViolation(table, path, target);
        if (message !== undefined) context.report({ node, message, hint: HINT });
      };
      return {
        ImportDeclaration: (node) => check(node, node.source.value),
        ExportNamedDeclaration: (node) => node.source && check(node, node.source.value),
        ExportAllDeclaration: (node) => check(node, node.source.value),
        ImportExpression(node) {
          if (node.source.type === "Literal") check(node, node.source.value);
        },
      };
    },
  };
}
