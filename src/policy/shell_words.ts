/**
 * Splitting a shell command line the way `sh` would before it runs anything: quotes removed,
 * escapes applied, lists and pipelines split into simple commands, and the commands hidden in
 * `$(...)`, backquotes, `sh -c '...'`, `eval` and here-documents fed to a shell found too. The
 * policy matches rules against these words, so spacing, quoting and nesting do not slip past it.
 *
 * Expansions (`$VAR`, globs) are left as written: the policy sees what the command says, not what
 * it would become.
 *
 * @module
 */
import { REDIRECTIONS, tokenize } from "./_shell_tokens.ts";

/** One simple command: its words after quote removal (assignments and redirections kept). */
export interface SimpleCommand {
  /** The words, in order; redirection operators are words of their own. */
  words: string[];
}

const KEYWORDS = new Set([
  "if",
  "then",
  "else",
  "elif",
  "fi",
  "do",
  "done",
  "while",
  "until",
  "!",
  "{",
  "}",
  "case",
  "esac",
  "in",
]);
const SHELLS = new Set(["sh", "bash", "dash", "zsh", "ksh", "ash", "busybox"]);

/**
 * Splits a command line into simple commands, nested ones included (depth-first, in order).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { simpleCommands } from "./shell_words.ts";
 * const commands = simpleCommands(`cd src && p"ip" install 'x y'; echo $(curl -s http://h)`);
 * assert(commands[1].words.join(" ") === "pip install x y");
 * assert(commands.some((command) => command.words[0] === "curl"));
 * ```
 */
export function simpleCommands(line: string, depth = 0): SimpleCommand[] {
  if (depth > 8) return [{ words: [line] }]; // absurd nesting: match the text as one word
  const { tokens, heredocs } = tokenize(line);
  const commands: SimpleCommand[] = [];
  let words: string[] = [];
  let heredocIndex = 0;
  let pendingHeredocs: string[] = [];
  // Inside `case WORD in`: the patterns before each `)` are not commands.
  let casePatterns = false;
  const flush = () => {
    if (words.length > 0) {
      commands.push({ words });
      commands.push(...innerCommands(words, pendingHeredocs, depth));
    }
    words = [];
    pendingHeredocs = [];
  };
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i];
    for (const nested of token.nested) commands.push(...simpleCommands(nested, depth + 1));
    if (casePatterns) {
      if (token.kind === "word" && token.text === "esac") casePatterns = false;
      else if (token.text === ")") casePatterns = false;
      continue;
    }
    if (token.kind === "operator") {
      flush();
      if (token.text === ";;") casePatterns = true;
      continue;
    }
    if (token.kind === "redirection") {
      words.push(token.text);
      if (token.text.startsWith("<<") && token.text !== "<<<") {
        pendingHeredocs.push(heredocs[heredocIndex++] ?? "");
      }
      continue;
    }
    if (words.length === 0 && token.text === "case") {
      while (i + 1 < tokens.length && tokens[i + 1].text !== "in") i++; // `case WORD in`
      i++;
      casePatterns = true;
      continue;
    }
    if (words.length === 0 && KEYWORDS.has(token.text)) continue;
    if (words.length === 0 && token.text === "for") {
      while (i + 1 < tokens.length && tokens[i + 1].kind !== "operator") i++; // `for x in a b`
      continue;
    }
    words.push(token.text);
  }
  flush();
  return commands;
}

/** Commands a simple command runs in turn: `sh -c STRING`, `eval ...`, a here-document fed to a shell. */
function innerCommands(words: string[], heredocs: string[], depth: number): SimpleCommand[] {
  const program = basename(effectiveProgram(words));
  const inner: SimpleCommand[] = [];
  if (program === "eval") {
    inner.push(...simpleCommands(words.slice(words.indexOf("eval") + 1).join(" "), depth + 1));
  }
  if (SHELLS.has(program)) {
    const shell = shellArguments(words.slice(words.indexOf(effectiveProgram(words)) + 1));
    if (shell.dashC && shell.operand !== undefined) {
      inner.push(...simpleCommands(shell.operand, depth + 1));
    }
    for (const body of heredocs) inner.push(...simpleCommands(body, depth + 1));
  }
  return inner;
}

/** How a shell's arguments say it gets its commands: see {@linkcode shellArguments}. */
export interface ShellArguments {
  /** One of its options is `-c`: the operand is the command string. */
  dashC: boolean;
  /** One of its options is `-s`: it reads its commands from its input. */
  dashS: boolean;
  /** Its first operand, after every option (options may follow `-c`, and `--` ends them). */
  operand: string | undefined;
}

/**
 * Reads a shell's arguments (the words after its name) as `sh` does: option clusters (`-ec`),
 * options with a value (`-o pipefail`, `--rcfile FILE`), long options and `--`, then the first
 * operand, which is the command string when an option was `-c` (`sh -c -- 'curl x'` runs
 * `curl x`), else a script to run.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { shellArguments } from "./shell_words.ts";
 * const shell = shellArguments(["-e", "-c", "--", "curl x"]);
 * assert(shell.dashC && shell.operand === "curl x");
 * assert(shellArguments(["build.sh", "-c", "x"]).dashC === false);
 * ```
 */
export function shellArguments(args: readonly string[]): ShellArguments {
  let dashC = false;
  let dashS = false;
  let i = 0;
  while (i < args.length && /^[-+]./.test(args[i])) {
    const word = args[i];
    if (word === "--") {
      i++;
      break;
    }
    if (word.startsWith("--")) {
      i += word === "--rcfile" || word === "--init-file" ? 2 : 1;
      continue;
    }
    if (/^-[a-zA-Z]*c/.test(word)) dashC = true;
    if (/^[-+][a-zA-Z]*s/.test(word)) dashS = true;
    i += /^[-+][a-zA-Z]*[oO]$/.test(word) ? 2 : 1;
  }
  return { dashC, dashS, operand: args[i] };
}

function effectiveProgram(words: string[]): string {
  return words.find((word) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(word) && !isRedirection(word)) ?? "";
}

function isRedirection(word: string): boolean {
  return REDIRECTIONS.some((operator) => word === operator || /^\d+[<>]/.test(word));
}

/** The last path segment of a word. */
export function basename(word: string): string {
  const trimmed = word.replace(/\/+$/, "");
  return trimmed.slice(trimmed.lastIndexOf("/") + 1) || word;
}
