/**
 * Verdict's own lint rules, wired into `deno.json`:
 *
 * - `verdict/no-ambient-nondeterminism`: under `src/`, except {@linkcode DETERMINISM_EXEMPT}, no
 *   wall clock, high-resolution timer, `Math.random` or platform entropy; time and randomness come
 *   in through an injected `Clock` and a seeded `Rng`.
 * - `verdict/layered-imports`: under `src/`, imports follow {@linkcode LAYERS}
 *   (lint/layered_imports.ts).
 * - `verdict/max-file-lines` and `verdict/max-function-lines`: under `src/`, no file over 400
 *   lines and no function over 80 (lint/size_limits.ts).
 *
 * Import circles need the whole tree at once, so they are checked by `deno task arch`
 * (lint/import_circles.ts), not here.
 *
 * @module
 */
import { DETERMINISM_EXEMPT, LAYERS } from "./layers.ts";
import { inSrc, projectPath } from "./_project_path.ts";
import { layeredImports } from "./layered_imports.ts";
import { maxFileLines, maxFunctionLines } from "./size_limits.ts";

const GLOBAL_OBJECTS = new Set(["globalThis", "window", "self"]);
const FORBIDDEN_MEMBERS: Readonly<Record<string, string>> = {
  "Date.now": "the wall clock",
  "performance.now": "a high-resolution timer",
  "Math.random": "unseeded randomness",
  "crypto.randomUUID": "platform entropy",
  "crypto.getRandomValues": "platform entropy",
};
const ADVICE = "take a Clock or an Rng as a parameter (src/core/clock.ts, src/core/rng.ts)";

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
    if (!inSrc(path) || path === DETERMINISM_EXEMPT) return {};
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

/** The plugin, as `deno.json` loads it. */
const plugin: Deno.lint.Plugin = {
  name: "verdict",
  rules: {
    "no-ambient-nondeterminism": noAmbientNondeterminism,
    "layered-imports": layeredImports(LAYERS),
    "max-file-lines": maxFileLines(),
    "max-function-lines": maxFunctionLines(),
  },
};

export default plugin;
