/**
 * The permission policy: ordered rules of tool name and argument patterns, allow or deny, and
 * default deny. A shell command is judged as every simple command in it, each seen as written,
 * by its program's basename, and with wrappers (`sudo`, `env`, `timeout`, `xargs`, ...) peeled
 * off; the call runs only if every one of those is allowed.
 *
 * @module
 */
import { posix } from "node:path";
import { globMatch } from "../core/glob.ts";
import { confinePath } from "../core/workdir_path.ts";
import { basename, simpleCommands } from "./shell_words.ts";

/** One rule. */
export interface PolicyRule {
  /** A tool name, or a glob such as `*`. */
  tool: string;
  /** What happens when the rule matches. */
  action: "allow" | "deny";
  /** Why, told to the model when it denies. */
  reason?: string;
  /** Shell word patterns; the rule matches only shell commands that fit one of them. */
  command?: string[];
  /** Path globs; the rule matches only file-tool calls on a path that fits one of them. */
  path?: string[];
}

/** An ordered list of rules and where it came from. */
export interface Policy {
  /** `default`, or the policy file. */
  source: string;
  /** The rules, `include: default` already expanded. */
  rules: PolicyRule[];
}

/** The tools whose `path` argument path rules apply to. */
export const FILE_TOOLS: ReadonlySet<string> = new Set([
  "read_file",
  "write_file",
  "edit_file",
  "list_dir",
  "search",
]);

/**
 * Every tool a rule can name: the built-in tools of SPEC section 5. The policy layer sits below
 * the tools, so it keeps this list itself; a test holds it equal to the tools' own names.
 *
 * @example
 * ```ts
 * import { FILE_TOOLS, TOOL_NAMES } from "./policy.ts";
 * console.assert([...FILE_TOOLS].every((tool) => TOOL_NAMES.includes(tool)));
 * ```
 */
export const TOOL_NAMES: readonly string[] = [...FILE_TOOLS, "shell", "read_docs", "finish"];

/** The policy's answer for one tool call. */
export interface PolicyDecision {
  /** Whether the call may run. */
  allowed: boolean;
  /** The index of the deciding rule, or null when no rule matched (default deny). */
  rule: number | null;
  /** The deciding rule's reason, or why nothing allowed the call. */
  reason: string;
  /** What the decision was about: the words or path the deciding rule saw. */
  subject: string;
}

/**
 * Decides one tool call.
 *
 * @example
 * ```ts
 * import { decide } from "./policy.ts";
 * const policy = {
 *   source: "inline",
 *   rules: [
 *     { tool: "shell", command: ["pip *"], action: "deny" as const, reason: "no installs" },
 *     { tool: "*", action: "allow" as const },
 *   ],
 * };
 * console.assert(!decide(policy, "shell", { command: "cd x && p'ip'  install y" }, "/workspace").allowed);
 * console.assert(decide(policy, "shell", { command: "python -m pytest" }, "/workspace").allowed);
 * ```
 */
export function decide(
  policy: Policy,
  tool: string,
  args: Record<string, unknown>,
  workdir: string,
): PolicyDecision {
  let first: PolicyDecision | undefined;
  for (const subject of subjectsOf(tool, args, workdir)) {
    const decision = decideSubject(policy, tool, subject);
    if (!decision.allowed) return decision;
    first ??= decision;
  }
  return first!;
}

type Subject = { words?: string[]; path?: string; text: string };

function subjectsOf(tool: string, args: Record<string, unknown>, workdir: string): Subject[] {
  if (tool === "shell") {
    const command = typeof args.command === "string" ? args.command : "";
    const views = simpleCommands(command).flatMap((simple) => viewsOf(simple.words));
    return views.length > 0
      ? views.map((words) => ({ words, text: words.join(" ") }))
      : [{ words: [], text: command }];
  }
  if (FILE_TOOLS.has(tool)) {
    // The path the tool will use: `/workspace/.env` is `.env` to a rule, as it is to the tool.
    const given = typeof args.path === "string" ? args.path : ".";
    const confined = confinePath(workdir, given);
    const path = typeof confined === "string" ? normalizePath(confined) : normalizePath(given);
    return [{ path, text: path }];
  }
  return [{ text: tool }];
}

function decideSubject(policy: Policy, tool: string, subject: Subject): PolicyDecision {
  for (const [index, rule] of policy.rules.entries()) {
    if (!globMatch(rule.tool, tool)) continue;
    if (rule.command !== undefined) {
      if (subject.words === undefined) continue;
      if (!rule.command.some((pattern) => commandMatches(pattern, subject.words!))) continue;
    }
    if (rule.path !== undefined) {
      if (subject.path === undefined) continue;
      if (!rule.path.some((glob) => globMatch(glob, subject.path!))) continue;
    }
    return {
      allowed: rule.action === "allow",
      rule: index,
      reason: rule.reason ??
        `rule ${index + 1} (${rule.action} ${rule.tool}) of the ${policy.source} policy`,
      subject: subject.text,
    };
  }
  return {
    allowed: false,
    rule: null,
    reason: `no rule of the ${policy.source} policy allows it (the policy denies by default)`,
    subject: subject.text,
  };
}

/**
 * Whether a command pattern fits a command's words. The pattern is split into words like a
 * command; a pattern word `*` on its own stands for any number of words (none included), and
 * within a word `*` stands for any characters, `?` for one.
 *
 * @example
 * ```ts
 * import { commandMatches } from "./policy.ts";
 * console.assert(commandMatches("pip *", ["pip", "install", "x"]));
 * console.assert(commandMatches("* .env *", ["grep", "-r", "KEY", ".env"]));
 * console.assert(!commandMatches("pip *", ["python", "-m", "pytest"]));
 * ```
 */
export function commandMatches(pattern: string, words: readonly string[]): boolean {
  let patternWords = splitPatterns.get(pattern);
  if (patternWords === undefined) {
    patternWords = simpleCommands(pattern)[0]?.words ?? [];
    splitPatterns.set(pattern, patternWords);
  }
  return matchWords(patternWords, 0, words, 0);
}

// Patterns come from a handful of policy files: split each once, not once per call and rule.
const splitPatterns = new Map<string, readonly string[]>();

function matchWords(
  pattern: readonly string[],
  p: number,
  words: readonly string[],
  w: number,
): boolean {
  if (p === pattern.length) return w === words.length;
  if (pattern[p] === "*") {
    for (let skip = w; skip <= words.length; skip++) {
      if (matchWords(pattern, p + 1, words, skip)) return true;
    }
    return false;
  }
  return w < words.length && wordMatches(pattern[p], words[w]) &&
    matchWords(pattern, p + 1, words, w + 1);
}

const wordPatterns = new Map<string, RegExp>();

function wordMatches(pattern: string, word: string): boolean {
  let regex = wordPatterns.get(pattern);
  if (regex === undefined) {
    const source = pattern.replace(/[.+^${}()|[\]\\]/g, "\\$&").replaceAll("*", ".*").replaceAll(
      "?",
      ".",
    );
    regex = new RegExp(`^${source}$`, "s");
    wordPatterns.set(pattern, regex);
  }
  return regex.test(word) || (word.includes("/") && regex.test(normalizePath(word)));
}

/**
 * A workspace path as rules see it: normalized, relative, without a leading `./`.
 *
 * @example
 * ```ts
 * import { normalizePath } from "./policy.ts";
 * console.assert(normalizePath("./src/../.env") === ".env");
 * ```
 */
export function normalizePath(path: string): string {
  const normalized = posix.normalize(path).replace(/\/+$/, "");
  return normalized === "" ? "." : normalized.replace(/^\.\//, "");
}

const WRAPPER_OPTIONS_WITH_VALUE: Record<string, Set<string>> = {
  sudo: new Set(["-u", "-g", "-p", "-C", "-h", "-U", "-r", "-t", "-D"]),
  env: new Set(["-u", "-C", "-S"]),
  nice: new Set(["-n"]),
  timeout: new Set(["-s", "-k", "--signal", "--kill-after"]),
  xargs: new Set(["-I", "-n", "-P", "-d", "-L", "-s", "-a", "-E", "-i"]),
  stdbuf: new Set(["-i", "-o", "-e"]),
  nohup: new Set(),
  command: new Set(),
  exec: new Set(["-a"]),
  builtin: new Set(),
  time: new Set(["-f", "-o"]),
  doas: new Set(["-u", "-C"]),
  chroot: new Set(),
};

/** The ways one simple command is looked at: as written, by basename, and unwrapped. */
function viewsOf(words: readonly string[]): string[][] {
  const views: string[][] = [];
  let current = withoutAssignments(words);
  for (let depth = 0; current.length > 0 && depth < 6; depth++) {
    views.push(current);
    const program = basename(current[0]);
    if (program !== current[0]) views.push([program, ...current.slice(1)]);
    const inner = unwrap(program, current.slice(1));
    if (inner === undefined) break;
    current = withoutAssignments(inner);
  }
  return views;
}

function unwrap(program: string, rest: string[]): string[] | undefined {
  if (program === "busybox") return rest;
  const withValue = WRAPPER_OPTIONS_WITH_VALUE[program];
  if (withValue === undefined) return undefined;
  let i = 0;
  while (i < rest.length && rest[i].startsWith("-") && rest[i] !== "-") {
    if (rest[i] === "--") {
      i++;
      break;
    }
    i += withValue.has(rest[i]) ? 2 : 1;
  }
  if (program === "timeout" && i < rest.length) i++; // the duration
  if (program === "chroot" && i < rest.length) i++; // the new root
  return rest.slice(i);
}

function withoutAssignments(words: readonly string[]): string[] {
  let i = 0;
  while (i < words.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[i])) i++;
  return words.slice(i);
}
