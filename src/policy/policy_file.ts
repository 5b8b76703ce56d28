/**
 * Policy files (YAML): `rules`, checked in order, each `tool` + optional `command` or `path`
 * patterns + `action` + `reason`; `- include: default` splices in the default coding policy.
 *
 * ```yaml
 * rules:
 *   - tool: shell
 *     command: ["pip *", "curl *"]
 *     action: deny
 *     reason: no installs or downloads in this task
 *   - tool: shell
 *     opaque: true   # a command the policy cannot read: `$x`, `eval`, `... | sh`
 *     action: deny
 *   - include: default
 * ```
 *
 * @module
 */
import { z } from "zod";
import { InputError, type InputProblem } from "../core/errors.ts";
import { globMatch, globProblem } from "../core/glob.ts";
import { readInputFile } from "../core/input_file.ts";
import { schemaProblems } from "../core/schema_problems.ts";
import { nearest } from "../core/suggest.ts";
import { DEFAULT_POLICY } from "./default_policy.ts";
import { type Policy, type PolicyRule, TOOL_NAMES } from "./policy.ts";
import { simpleCommands } from "./shell_words.ts";
import { parseYamlInput } from "../core/yaml_input.ts";

const GLOB_FIX = "correct the glob (`**` any folders, `*` and `?` within a name, `[abc]` a set)";

function validGlob(pattern: string, context: z.RefinementCtx): void {
  const problem = globProblem(pattern);
  if (problem !== undefined) {
    context.addIssue({
      code: "custom",
      message: `'${pattern}' is not a valid glob: ${problem}`,
      params: { fix: GLOB_FIX },
    });
  }
}

const toolPattern = z.string().min(1).superRefine((tool, context) => {
  if (tool === "") return;
  if (globProblem(tool) !== undefined) return validGlob(tool, context);
  if (TOOL_NAMES.some((name) => globMatch(tool, name))) return;
  const guess = nearest(tool, TOOL_NAMES);
  context.addIssue({
    code: "custom",
    message: `'${tool}' names no tool, so the rule would never apply`,
    params: {
      fix: guess
        ? `did you mean '${guess}'?`
        : `use a tool name (${TOOL_NAMES.join(", ")}) or a glob such as '*'`,
    },
  });
});
// A command pattern is matched against one simple command at a time, so it must be one.
const commandPattern = z.string().min(1).superRefine((pattern, context) => {
  const commands = simpleCommands(pattern);
  if (pattern === "" || commands.length === 1 && commands[0].words.length > 0) return;
  context.addIssue({
    code: "custom",
    message: commands.length === 0
      ? `'${pattern}' holds no command, so it would never match`
      : `'${pattern}' is ${commands.length} commands; a pattern matches one simple command`,
    params: { fix: "write one pattern per command, such as 'pip install *'" },
  });
});
const commandPatterns = z.union([commandPattern, z.array(commandPattern).min(1)]);
const pathGlob = z.string().min(1).superRefine(validGlob);
const pathPatterns = z.union([pathGlob, z.array(pathGlob).min(1)]);
const RULE_SCHEMA = z.strictObject({
  tool: toolPattern,
  action: z.enum(["allow", "deny"]),
  reason: z.string().optional(),
  command: commandPatterns.optional(),
  path: pathPatterns.optional(),
  opaque: z.literal(true).optional(),
});
const INCLUDE_SCHEMA = z.strictObject({ include: z.literal("default") });
const FILE_SCHEMA = z.strictObject({ rules: z.array(z.unknown()) });

/**
 * Parses policy text.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parsePolicy } from "./policy_file.ts";
 * const policy = parsePolicy("rules:\n  - tool: shell\n    command: 'pip *'\n    action: deny\n", "p.yaml");
 * assert(policy.rules.length === 1 && policy.rules[0].command?.[0] === "pip *");
 * ```
 * @throws {InputError} naming the file, the field and the fix.
 */
export function parsePolicy(text: string, file: string): Policy {
  const parsed = FILE_SCHEMA.safeParse(parseYamlInput(text, file), { reportInput: true });
  if (!parsed.success) throw new InputError(schemaProblems(file, FILE_SCHEMA, parsed.error.issues));
  const problems: InputProblem[] = [];
  const rules: PolicyRule[] = [];
  parsed.data.rules.forEach((raw, index) => {
    if (raw !== null && typeof raw === "object" && "include" in raw) {
      const include = INCLUDE_SCHEMA.safeParse(raw, { reportInput: true });
      if (include.success) rules.push(...DEFAULT_POLICY.rules);
      else {problems.push(
          ...schemaProblems(file, INCLUDE_SCHEMA, include.error.issues, ["rules", index]),
        );}
      return;
    }
    const rule = RULE_SCHEMA.safeParse(raw, { reportInput: true });
    if (!rule.success) {
      problems.push(...schemaProblems(file, RULE_SCHEMA, rule.error.issues, ["rules", index]));
      return;
    }
    const { command, path, ...rest } = rule.data;
    if ([command, path, rest.opaque].filter((field) => field !== undefined).length > 1) {
      problems.push({
        file,
        field: `rules[${index}]`,
        problem: "a rule may have one of command patterns, path patterns or opaque, not more",
        fix: "split it into two rules",
      });
      return;
    }
    rules.push({
      ...rest,
      ...(command === undefined ? {} : { command: [command].flat() }),
      ...(path === undefined ? {} : { path: [path].flat() }),
    });
  });
  if (problems.length > 0) throw new InputError(problems);
  return { source: file, rules };
}

/**
 * Loads a policy: `default`, or a YAML file.
 *
 * @throws {InputError} when the file is missing or bad (exit 2).
 */
export async function loadPolicy(source: string): Promise<Policy> {
  if (source === "default") return DEFAULT_POLICY;
  const text = await readInputFile(source, "policy", "write it, or use the default policy");
  return parsePolicy(text, source);
}
