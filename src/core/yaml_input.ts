/**
 * Parsing a user's YAML file (a task manifest, a policy, prices, a gate): YAML 1.2, duplicate keys
 * refused, and every syntax error reported with its file, line and column (exit 2). Aliases are
 * expanded under a budget, so an alias bomb ("billion laughs") is bad input, not a hung process.
 *
 * @module
 */
import { parseDocument } from "yaml";
import { InputError } from "./errors.ts";

// How far the aliases of a document may expand their anchors, in the `yaml` package's own
// accounting (its default, made explicit): ample for a hand-written file, far below a bomb.
const MAX_ALIAS_COUNT = 100;

/** Options of {@linkcode parseYamlInput}. */
export interface YamlInputOptions {
  /** What to tell the user to do about a syntax error. */
  fix?: string;
  /** Keep every scalar a string (for exact decimals such as prices). */
  stringsOnly?: boolean;
}

/**
 * Parses YAML text into plain data (`{}` for an empty file), for a schema to check next.
 *
 * @throws {InputError} listing every syntax error, each at `file:line:col`; an alias to no anchor,
 * or aliases that expand too far (an alias bomb), name the file.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseYamlInput } from "./yaml_input.ts";
 * assert((parseYamlInput("a: 1\n", "x.yaml") as { a: number }).a === 1);
 * ```
 */
export function parseYamlInput(
  text: string,
  file: string,
  options: YamlInputOptions = {},
): unknown {
  const document = parseDocument(text, {
    uniqueKeys: true,
    prettyErrors: true,
    ...(options.stringsOnly ? { schema: "failsafe" as const } : {}),
  });
  if (document.errors.length > 0) {
    throw new InputError(document.errors.map((error) => {
      const at = error.linePos?.[0];
      return {
        file: at ? `${file}:${at.line}:${at.col}` : file,
        field: "",
        problem: `not valid YAML: ${error.message.split("\n")[0]}`,
        fix: options.fix ?? "correct the YAML syntax (duplicate keys are not allowed)",
      };
    }));
  }
  try {
    return document.toJS({ maxAliasCount: MAX_ALIAS_COUNT }) ?? {};
  } catch (error) {
    // The package reports both an alias bomb and an alias to no anchor as a ReferenceError.
    if (!(error instanceof ReferenceError)) throw error;
    throw new InputError({
      file,
      field: "",
      problem: `not valid YAML: ${aliasProblem(error.message)}`,
      fix: "write the values out, or use fewer aliases (`*name`), each after its anchor (`&name`)",
    });
  }
}

function aliasProblem(message: string): string {
  return message.startsWith("Excessive alias count")
    ? `its aliases expand too far (more than ${MAX_ALIAS_COUNT} times; an alias bomb?)`
    : message.split("\n")[0];
}
