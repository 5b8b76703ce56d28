/**
 * The permission policy: ordered rules of tool name and argument patterns, allow or deny, and
 * default deny. A shell command is judged as every simple command in it, each seen as written,
 * by its program's basename, without a version suffix (`pip3.11` as `pip`), with `python -mX`
 * as `python -m X`, with wrappers (`sudo`, `env`, `timeout`, `xargs`, ...) peeled off, and with
 * what `sh -c` and `find -exec` run; the call runs only if every one of those is allowed. A
 * simple command whose program the text does not settle (see {@linkcode opaqueReason}) is also
 * matched by `opaque` rules.
 *
 * @module
 */
import { posix } from "node:path";
import { globMatch } from "../core/glob.ts";
import { confinePath } from "../core/workdir_path.ts";
import { basename, shellArguments, simpleCommands } from "./shell_words.ts";

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
  /**
   * When true, the rule matches only shell commands the policy cannot read: a program named at
   * run time, `eval`, `source`, or commands a shell reads from its input.
   */
  opaque?: boolean;
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
 * import assert from "node:assert/strict";
 * import { FILE_TOOLS, TOOL_NAMES } from "./policy.ts";
 * assert([...FILE_TOOLS].every((tool) => TOOL_NAMES.includes(tool)));
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
 * import assert from "node:assert/strict";
 * import { decide } from "./policy.ts";
 * const policy = {
 *   source: "inline",
 *   rules: [
 *     { tool: "shell", command: ["pip *"], action: "deny" as const, reason: "no installs" },
 *     { tool: "*", action: "allow" as const },
 *   ],
 * };
 * assert(!decide(policy, "shell", { command: "cd x && p'ip'  install y" }, "/workspace").allowed);
 * assert(decide(policy, "shell", { command: "python -m pytest" }, "/workspace").allowed);
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

type Subject = { words?: string[]; path?: string; text: string; opaque?: boolean };

function subjectsOf(tool: string, args: Record<string, unknown>, workdir: string): Subject[] {
  if (tool === "shell") {
    const command = typeof args.command === "string" ? args.command : "";
    const subjects = simpleCommands(command).flatMap((simple) => commandSubjects(simple.words, 0));
    return subjects.length > 0 ? subjects : [{ words: [], text: command }];
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
    if (rule.opaque && !subject.opaque) continue;
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
 * import assert from "node:assert/strict";
 * import { commandMatches } from "./policy.ts";
 * assert(commandMatches("pip *", ["pip", "install", "x"]));
 * assert(commandMatches("* .env *", ["grep", "-r", "KEY", ".env"]));
 * assert(!commandMatches("pip *", ["python", "-m", "pytest"]));
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
 * import assert from "node:assert/strict";
 * import { normalizePath } from "./policy.ts";
 * assert(normalizePath("./src/../.env") === ".env");
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
  setsid: new Set(),
  ionice: new Set(["-c", "-n"]),
  chronic: new Set(),
  unbuffer: new Set(),
};

/**
 * Why the policy cannot tell what a simple command (assignments and leading redirections already
 * dropped) runs, or undefined when its words settle it: a program word built at run time (`$x`,
 * `$(...)`, backquotes, globs, braces), `eval`, `source` / `.` and `alias`, and a shell that reads
 * its commands from its input (`... | sh`, `sh -s`, `sh < file`, `sh -c` with no string).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { opaqueReason } from "./policy.ts";
 * assert(opaqueReason(["$x", "https://h"]) !== undefined);
 * assert(opaqueReason(["sh"]) !== undefined);
 * assert(opaqueReason(["sh", "build.sh"]) === undefined);
 * assert(opaqueReason(["[", "-f", "x", "]"]) === undefined);
 * ```
 */
export function opaqueReason(words: readonly string[]): string | undefined {
  const program = words[0] ?? "";
  if (program !== "[" && program !== "[[" && /[$`*?[\]{}]/.test(program)) {
    return "its program is only known once the shell expands it";
  }
  const name = basename(program);
  if (EVALUATORS.has(name)) return `\`${name}\` runs text the policy cannot see`;
  if (!SHELL_PROGRAMS.has(name)) return undefined;
  const { dashC, dashS, operand } = shellArguments(words.slice(1));
  if (dashC) {
    return operand === undefined || isRedirectionWord(operand)
      ? "the shell reads its command from elsewhere"
      : undefined;
  }
  return dashS || operand === undefined || operand === "-" || isRedirectionWord(operand)
    ? "the shell reads its commands from its input"
    : undefined;
}

const EVALUATORS = new Set(["eval", "source", ".", "alias"]);
const SHELL_PROGRAMS = new Set(["sh", "bash", "dash", "zsh", "ksh", "ash", "mksh", "fish"]);
const FIND_EXEC = new Set(["-exec", "-execdir", "-ok", "-okdir"]);

/** Every way one simple command is judged; nested commands (`sh -c`, `find -exec`) included. */
function commandSubjects(words: readonly string[], depth: number): Subject[] {
  const subjects: Subject[] = [];
  for (const view of viewsOf(words)) {
    const why = opaqueReason(view);
    subjects.push(
      why === undefined
        ? { words: view, text: view.join(" ") }
        : { words: view, text: `${view.join(" ")} (${why})`, opaque: true },
    );
    if (depth >= 6) continue;
    for (const inner of innerCommands(view)) subjects.push(...commandSubjects(inner, depth + 1));
  }
  return subjects;
}

/** The commands a program runs from its arguments: `sh -c STRING`, `find ... -exec CMD ;`. */
function innerCommands(view: readonly string[]): string[][] {
  const name = basename(view[0] ?? "");
  if (SHELL_PROGRAMS.has(name)) {
    const { dashC, operand } = shellArguments(view.slice(1));
    return dashC && operand !== undefined
      ? simpleCommands(operand).map((simple) => simple.words)
      : [];
  }
  if (name !== "find") return [];
  const inner: string[][] = [];
  for (let i = 1; i < view.length; i++) {
    if (!FIND_EXEC.has(view[i])) continue;
    let end = i + 1;
    while (end < view.length && view[end] !== ";" && view[end] !== "+") end++;
    inner.push(view.slice(i + 1, end));
    i = end;
  }
  return inner;
}

/**
 * The ways one simple command is looked at: as written, by basename, without a version suffix,
 * with `-mX` as `-m X` (a module by its top package), and unwrapped.
 */
function viewsOf(words: readonly string[]): string[][] {
  const views: string[][] = [];
  let current = withoutAssignments(words);
  for (let depth = 0; current.length > 0 && depth < 6; depth++) {
    views.push(current);
    const program = basename(current[0]);
    if (program !== current[0]) views.push([program, ...current.slice(1)]);
    const unversioned = program.replace(/(?<=[A-Za-z])[-.]?\d[\d.]*$/, "");
    if (unversioned !== program) views.push([unversioned, ...current.slice(1)]);
    const module = moduleView(unversioned, current.slice(1));
    if (module !== undefined) views.push(module);
    const inner = unwrap(program, current.slice(1));
    if (inner === undefined) break;
    current = withoutAssignments(inner);
  }
  return views;
}

/** `python3 -Im pip.x install` as `python -m pip install`: what `* -m pip *` rules expect. */
function moduleView(program: string, rest: readonly string[]): string[] | undefined {
  if (!/^(python|pypy)$/.test(program)) return undefined;
  for (let i = 0; i < rest.length && rest[i].startsWith("-"); i++) {
    const match = /^-[A-Za-z]*m(.*)$/.exec(rest[i]);
    if (match === null || rest[i].startsWith("--")) continue;
    const module = match[1] === "" ? rest[i + 1] : match[1];
    if (module === undefined) return undefined;
    const after = rest.slice(match[1] === "" ? i + 2 : i + 1);
    return [program, "-m", module.split(".")[0], ...after];
  }
  return undefined;
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
    // `env -S 'curl x'` splits its string into the command's words.
    if (program === "env" && rest[i] === "-S" && rest[i + 1] !== undefined) {
      return [...rest[i + 1].split(/\s+/).filter((word) => word !== ""), ...rest.slice(i + 2)];
    }
    i += withValue.has(rest[i]) ? 2 : 1;
  }
  if (program === "timeout" && i < rest.length) i++; // the duration
  if (program === "chroot" && i < rest.length) i++; // the new root
  return rest.slice(i);
}

/** The words from the program on: leading assignments and redirections (with targets) dropped. */
function withoutAssignments(words: readonly string[]): string[] {
  let i = 0;
  while (i < words.length) {
    if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(words[i])) i++;
    else if (isRedirectionWord(words[i])) i += 2;
    else break;
  }
  return words.slice(i);
}

function isRedirectionWord(word: string): boolean {
  return /^\d*(<<<|<<-|<<|>>|&>>|&>|>&|<&|>\||<>|<|>)$/.test(word);
}
