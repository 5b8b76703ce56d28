/**
 * Parsing a user's YAML file (a task manifest, a policy, prices, a gate): YAML 1.2, duplicate keys
 * refused, and every syntax error reported with its file, line and column (exit 2).
 *
 * @module
 */
import { parseDocument } from "yaml";
import { InputError } from "./errors.ts";

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
 * @throws {InputError} listing every syntax error, each at `file:line:col`.
 * @example
 * ```ts
 * import { parseYamlInput } from "./yaml_input.ts";
 * console.assert((parseYamlInput("a: 1\n", "x.yaml") as { a: number }).a === 1);
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
  return document.toJS() ?? {};
}
