/**
 * Verdict's own lint rules, wired into `deno.json`:
 *
 * - `verdict/no-ambient-nondeterminism`: under `src/`, except {@linkcode DETERMINISM_EXEMPT}, no
 *   wall clock, high-resolution timer, `Math.random` or platform entropy; time and randomness come
 *   in through an injected `Clock` and a seeded `Rng`.
 * - `verdict/layered-imports`: under `src/`, imports follow {@linkcode LAYERS}.
 *
 * @module
 */
import { dirname, join, normalize, relative } from "node:path";
import { DETERMINISM_EXEMPT, LAYERS } from "./layers.ts";

const PROJECT_ROOT = normalize(join(dirname(new URL(import.meta.url).pathname), ".."));
const GLOBAL_OBJECTS = new Set(["globalThis", "window", "self"]);
const FORBIDDEN_MEMBERS: Readonly<Record<string, string>> = {
  "Date.now": "the wall clock",
  "performance.now": "a high-resolution timer",
  "Math.random": "unseeded randomness",
  "crypto.randomUUID": "platform entropy",
  "crypto.getRandomValues": "platform entropy",
};
const ADVICE = "take a Clock or an Rng as a parameter (src/core/clock.ts, src/core/rng.ts)";

/** The path of a linted file relative to the project root, with `/` separators. */
function projectPath(filename: string): string {
  const path = filename.startsWith("/") ? relative(PROJECT_ROOT, filename) : normalize(filename);
  return path.replaceAll("\\", "/");
}

/** `src/<folder>/...` → folder; undefined for files outside `src/`. */
function srcFolder(path: string): string | undefined {
  const parts = path.split("/");
  if (parts[0] !== "src") return undefined;
  return parts.length > 2 ? parts[1] : "";
}

/** `globalThis.Date.now` → `Date.now`; undefined when the expression is not a plain dotted path. */
function dottedName(node: Deno.lint.Node): string | undefined {
  if (node.type === "Identifier") return node.name;
  if (node.type !== "MemberExpression") return undefined;
  const object = dottedName(node.object);
  let property: string | undefined;
  if (!node.computed && node.property.type === "Identifier") property = node.property.name;
  else if (node.property.type === "Literal" && typeof node.property.value === "string") {
    property = node.property.value;
  }
  if (object === undefined || property === undefined) return undefined;
  return GLOBAL_OBJECTS.has(object) ? property : `${object}.${property}`;
}

function isDateConstructor(node: Deno.lint.Node): boolean {
  return dottedName(node) === "Date";
}

const noAmbientNondeterminism: Deno.lint.Rule = {
  create(context) {
    const path = projectPath(context.filename);
    if (srcFolder(path) === undefined || path === DETERMINISM_EXEMPT) return {};
    const report = (node: Deno.lint.Node, what: string, source: string) =>
      context.report({
        node,
        message: `${source} reads ${what} outside ${DETERMINISM_EXEMPT}`,
        hint: ADVICE,
      });
    return {
      MemberExpression(node) {
        const name = dottedName(node);
        if (name !== undefined && name in FORBIDDEN_MEMBERS) {
          report(node, FORBIDDEN_MEMBERS[name], name);
        }
      },
      CallExpression(node) {
        if (isDateConstructor(node.callee)) report(node, "the wall clock", "Date()");
      },
      NewExpression(node) {
        if (isDateConstructor(node.callee) && node.arguments.length === 0) {
          report(node, "the wall clock", "new Date()");
        }
      },
      VariableDeclarator(node) {
        if (node.id.type !== "ObjectPattern" || node.init == null) return;
        const object = dottedName(node.init);
        for (const property of node.id.properties) {
          if (property.type !== "Property" || property.key.type !== "Identifier") continue;
          const name = `${object}.${property.key.name}`;
          if (name in FORBIDDEN_MEMBERS) report(property, FORBIDDEN_MEMBERS[name], name);
        }
      },
    };
  },
};

const layeredImports: Deno.lint.Rule = {
  create(context) {
    const path = projectPath(context.filename);
    const folder = srcFolder(path);
    if (folder === undefined) return {};
    const check = (node: Deno.lint.Node, specifier: unknown) => {
      if (typeof specifier !== "string" || !specifier.startsWith(".")) return;
      const target = normalize(join(dirname(path), specifier)).replaceAll("\\", "/");
      const message = layerViolation(folder, target);
      if (message !== undefined) {
        context.report({
          node,
          message,
          hint: "move the shared code down a layer, or pass it in as a parameter (lint/layers.ts)",
        });
      }
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

function layerViolation(folder: string, target: string): string | undefined {
  if (!(folder in LAYERS)) {
    return `src/${
      folder || "(top level)"
    } is not in the layer map; add the folder to lint/layers.ts`;
  }
  const targetFolder = srcFolder(target);
  if (targetFolder === undefined) {
    return `src/${folder} imports ${target}, outside src/: library code must not reach up into ` +
      `the entry points`;
  }
  if (targetFolder === folder) return undefined;
  const targetRank = LAYERS[targetFolder];
  if (targetRank === undefined) {
    return `src/${folder} imports from src/${targetFolder}, which is not in the layer map`;
  }
  if (targetRank >= LAYERS[folder]) {
    return `src/${folder} (layer ${LAYERS[folder]}) may not import src/${targetFolder} ` +
      `(layer ${targetRank}): imports go only to lower layers`;
  }
  return undefined;
}

/** The plugin, as `deno.json` loads it. */
const plugin: Deno.lint.Plugin = {
  name: "verdict",
  rules: {
    "no-ambient-nondeterminism": noAmbientNondeterminism,
    "layered-imports": layeredImports,
  },
};

export default plugin;
