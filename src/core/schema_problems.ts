/**
 * Turns zod issues into "file, field, fix" problems: the field path in dotted form, what is
 * wrong in words, and what to do, including the nearest known key for a misspelt one.
 *
 * @module
 */
import type { z } from "zod";
import type { InputProblem } from "./errors.ts";
import { nearest } from "./suggest.ts";

type Def = {
  type: string;
  shape?: Record<string, z.ZodType>;
  innerType?: z.ZodType;
  element?: z.ZodType;
  in?: z.ZodType;
};

function defOf(schema: z.ZodType): Def {
  return (schema as unknown as { _zod: { def: Def } })._zod.def;
}

/**
 * The keys an object schema at `path` accepts (through defaults, optionals and arrays).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { z } from "zod";
 * import { knownKeysAt } from "./schema_problems.ts";
 * const schema = z.object({ limits: z.object({ max_steps: z.number() }).optional() });
 * assert(knownKeysAt(schema, ["limits"])[0] === "max_steps");
 * ```
 */
export function knownKeysAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  let current: z.ZodType | undefined = schema;
  const unwrap = () => {
    for (let def = defOf(current!); def.innerType || def.in; def = defOf(current!)) {
      current = def.innerType ?? def.in;
    }
  };
  unwrap();
  for (const segment of path) {
    const def = defOf(current);
    current = typeof segment === "number" ? def.element : def.shape?.[String(segment)];
    if (current === undefined) return [];
    unwrap();
  }
  return Object.keys(defOf(current).shape ?? {});
}

/**
 * Formats a field path: `limits.max_steps`, `checks[2].file_contains.path`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { fieldPath } from "./schema_problems.ts";
 * assert(fieldPath(["checks", 2, "path"]) === "checks[2].path");
 * ```
 */
export function fieldPath(path: readonly PropertyKey[]): string {
  let text = "";
  for (const segment of path) {
    text += typeof segment === "number"
      ? `[${segment}]`
      : text
      ? `.${String(segment)}`
      : String(segment);
  }
  return text;
}

/**
 * The problems of a failed parse, each naming the file, the field and the fix.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { z } from "zod";
 * import { schemaProblems } from "./schema_problems.ts";
 * const schema = z.strictObject({ max_steps: z.number() });
 * const parsed = schema.safeParse({ max_step: 3 });
 * const problems = schemaProblems("task.yaml", schema, parsed.error!.issues);
 * assert.deepEqual(problems.map((problem) => problem.fix), [
 *   "add it (a number)", // max_steps is missing
 *   "did you mean 'max_steps'? Otherwise remove it", // max_step is unknown
 * ]);
 * ```
 */
export function schemaProblems(
  file: string,
  schema: z.ZodType,
  issues: readonly z.core.$ZodIssue[],
  prefix: readonly PropertyKey[] = [],
): InputProblem[] {
  const problems: InputProblem[] = [];
  for (const issue of issues) {
    const path = [...prefix, ...issue.path];
    if (issue.code === "unrecognized_keys") {
      const known = knownKeysAt(schema, issue.path);
      for (const key of issue.keys) {
        const guess = nearest(key, known);
        problems.push({
          file,
          field: fieldPath([...path, key]),
          problem: "unknown key",
          fix: guess
            ? `did you mean '${guess}'? Otherwise remove it`
            : `remove it; allowed here: ${known.join(", ") || "nothing"}`,
        });
      }
      continue;
    }
    problems.push({ file, field: fieldPath(path), ...describe(issue) });
  }
  return problems;
}

function describe(issue: z.core.$ZodIssue): { problem: string; fix: string } {
  switch (issue.code) {
    case "invalid_type": {
      const expected = typeName(issue.expected);
      if (typeof issue.input === "number" && !Number.isFinite(issue.input)) {
        return {
          problem: `expected ${expected}, got ${describeValue(issue.input)}`,
          fix: `write a finite number here`,
        };
      }
      return issue.input === undefined ? { problem: "is missing", fix: `add it (${expected})` } : {
        problem: `expected ${expected}, got ${describeValue(issue.input)}`,
        fix: `write ${expected} here`,
      };
    }
    case "invalid_value": {
      const allowed = issue.values.map((value) => String(value)).join(", ");
      return issue.input === undefined
        ? { problem: "is missing", fix: `add it, one of: ${allowed}` }
        : {
          problem: `${describeValue(issue.input)} is not allowed`,
          fix: `use one of: ${allowed}`,
        };
    }
    case "too_small":
    case "too_big":
      return describeBound(issue);
    case "custom": {
      const fix = (issue.params as { fix?: unknown } | undefined)?.fix;
      return { problem: issue.message, fix: typeof fix === "string" ? fix : "correct the value" };
    }
    default:
      return { problem: issue.message, fix: "correct the value" };
  }
}

function describeBound(
  issue: z.core.$ZodIssueTooSmall | z.core.$ZodIssueTooBig,
): { problem: string; fix: string } {
  const small = issue.code === "too_small";
  const bound = Number(small ? issue.minimum : issue.maximum);
  const inclusive = issue.inclusive !== false;
  if (issue.origin === "string" || issue.origin === "array") {
    const unit = issue.origin === "string" ? "character" : "item";
    const count = `${bound} ${unit}${bound === 1 ? "" : "s"}`;
    const limit = small
      ? (inclusive ? "at least" : "more than")
      : (inclusive ? "at most" : "fewer than");
    return bound === 1 && small && inclusive
      ? { problem: "must not be empty", fix: `give at least one ${unit}` }
      : { problem: `must have ${limit} ${count}`, fix: `give ${limit} ${count}` };
  }
  const limit = small ? (inclusive ? "at least" : "above") : (inclusive ? "at most" : "below");
  const got = issue.input === undefined ? "" : `, got ${describeValue(issue.input)}`;
  return {
    problem: `must be ${limit} ${bound}${got}`,
    fix: `use a value ${inclusive ? "of " : ""}${limit} ${bound}`,
  };
}

function typeName(expected: string): string {
  switch (expected) {
    case "int":
      return "a whole number";
    case "object":
      return "a mapping";
    case "array":
      return "a list";
    case "boolean":
      return "true or false";
    default:
      return `a ${expected}`;
  }
}

function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (value === undefined) return "nothing";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "a mapping";
  if (typeof value === "number" && Number.isNaN(value)) return "not-a-number (.nan)";
  if (typeof value === "number" && !Number.isFinite(value)) {
    return "a number too large to represent (infinity)";
  }
  return `${typeof value} ${JSON.stringify(value)}`;
}
