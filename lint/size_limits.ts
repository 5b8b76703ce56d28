/**
 * The size rules: under `src/`, no file over {@linkcode MAX_FILE_LINES} lines
 * (`verdict/max-file-lines`) and no function over {@linkcode MAX_FUNCTION_LINES} lines
 * (`verdict/max-function-lines`). A function's size is the span from its first line to its last,
 * for declarations, expressions, arrows and class or object methods; a nested function counts
 * within its parent's span too.
 *
 * @module
 */
import { inSrc, projectPath } from "./_project_path.ts";

/** The most lines a file under `src/` may have. */
export const MAX_FILE_LINES = 400;
/** The most lines a function under `src/` may span. */
export const MAX_FUNCTION_LINES = 80;

type FunctionNode =
  | Deno.lint.FunctionDeclaration
  | Deno.lint.FunctionExpression
  | Deno.lint.ArrowFunctionExpression;

/**
 * `verdict/max-file-lines`.
 *
 * @example
 * ```ts
 * import { maxFileLines } from "./size_limits.ts";
 * const rule: Deno.lint.Rule = maxFileLines();
 * console.assert(typeof rule.create === "function");
 * ```
 */
export function maxFileLines(): Deno.lint.Rule {
  return {
    create(context) {
      const path = projectPath(context.filename);
      if (!inSrc(path)) return {};
      const text = context.sourceCode.text;
      const lines = _lineCount(text);
      if (lines <= MAX_FILE_LINES) return {};
      context.report({
        range: _firstLine(text, 0),
        message: `${path} has ${lines} lines, over the limit of ${MAX_FILE_LINES}`,
        hint: "split it into named steps: smaller modules that each hold one idea",
      });
      return {};
    },
  };
}

/**
 * `verdict/max-function-lines`.
 *
 * @example
 * ```ts
 * import { maxFunctionLines } from "./size_limits.ts";
 * const rule: Deno.lint.Rule = maxFunctionLines();
 * console.assert(typeof rule.create === "function");
 * ```
 */
export function maxFunctionLines(): Deno.lint.Rule {
  return {
    create(context) {
      const path = projectPath(context.filename);
      if (!inSrc(path)) return {};
      const text = context.sourceCode.text;
      const check = (node: FunctionNode) => {
        const [start, end] = _span(node);
        const lines = _lineCount(text.slice(start, end));
        if (lines <= MAX_FUNCTION_LINES) return;
        context.report({
          range: _firstLine(text, start),
          message: `function ${
            functionName(node)
          } has ${lines} lines, over the limit of ${MAX_FUNCTION_LINES}`,
          hint: "split it into named steps",
        });
      };
      return {
        FunctionDeclaration: check,
        FunctionExpression: check,
        ArrowFunctionExpression: check,
      };
    },
  };
}

/**
 * A function's name as the size rule reports it: the names of its enclosing functions and
 * classes (and named object literals), outermost first, then its own, joined by dots
 * (`loopAgent.run`, `DockerSandbox.exec`, `evalCommand.run`);
 * a function with no name of its own is `(anonymous)`.
 *
 * @example
 * ```ts
 * import { functionName } from "./size_limits.ts";
 * console.assert(typeof functionName === "function");
 * ```
 */
export function functionName(node: Deno.lint.Node): string {
  const names: string[] = [];
  for (let at: Deno.lint.Node | undefined = node; at !== undefined; at = _parent(at)) {
    const name = _ownName(at);
    if (name !== undefined) names.unshift(name);
  }
  return names.join(".");
}

/**
 * The name a function or class node is known by, or an object literal bound to a name (its
 * methods read `evalCommand.run`); undefined for any other node.
 */
function _ownName(node: Deno.lint.Node): string | undefined {
  if (node.type === "ObjectExpression") {
    const parent = _parent(node);
    if (parent?.type === "VariableDeclarator" && parent.id.type === "Identifier") {
      return parent.id.name;
    }
    return undefined;
  }
  const isFunction = node.type === "FunctionDeclaration" || node.type === "FunctionExpression" ||
    node.type === "ArrowFunctionExpression";
  const isClass = node.type === "ClassDeclaration" || node.type === "ClassExpression";
  if (!isFunction && !isClass) return undefined;
  if ((node.type !== "ArrowFunctionExpression") && node.id) return node.id.name;
  const parent = _parent(node);
  switch (parent?.type) {
    case "VariableDeclarator":
      return parent.id.type === "Identifier" ? parent.id.name : "(anonymous)";
    case "MethodDefinition":
    case "Property":
    case "PropertyDefinition":
      return _keyName(parent.key, parent.computed);
    case "AssignmentExpression":
      if (parent.left.type === "Identifier") return parent.left.name;
      if (parent.left.type === "MemberExpression") {
        return _keyName(parent.left.property, parent.left.computed);
      }
      return "(anonymous)";
    case "ExportDefaultDeclaration":
      return "default";
    default:
      return "(anonymous)";
  }
}

function _keyName(key: Deno.lint.Node, computed: boolean): string {
  if (computed) return "(computed)";
  if (key.type === "Identifier") return key.name;
  if (key.type === "PrivateIdentifier") return `#${key.name}`;
  if (key.type === "Literal") return String(key.value);
  return "(computed)";
}

function _parent(node: Deno.lint.Node): Deno.lint.Node | undefined {
  return (node as { parent?: Deno.lint.Node | null }).parent ?? undefined;
}

/** A method's span starts at its key; any other function's at the function itself. */
function _span(node: FunctionNode): Deno.lint.Range {
  const parent = _parent(node);
  const isMethod = parent?.type === "MethodDefinition" ||
    (parent?.type === "Property" && (parent.method || parent.kind !== "init"));
  return isMethod ? parent.range : node.range;
}

/** Lines in a text, not counting the empty one after a final newline. */
function _lineCount(text: string): number {
  if (text.length === 0) return 0;
  const newlines = text.split("\n").length - 1;
  return text.endsWith("\n") ? newlines : newlines + 1;
}

/** The range of the line starting at `start` (a report that prints one line, not the function). */
function _firstLine(text: string, start: number): Deno.lint.Range {
  const end = text.indexOf("\n", start);
  return [start, end === -1 ? text.length : end];
}
