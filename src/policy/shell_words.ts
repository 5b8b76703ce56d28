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

/** One simple command: its words after quote removal (assignments and redirections kept). */
export interface SimpleCommand {
  /** The words, in order; redirection operators are words of their own. */
  words: string[];
}

const OPERATORS = ["&&", "||", ";;", "|&", ";", "&", "|", "(", ")", "\n"];
const REDIRECTIONS = ["<<<", "<<-", "<<", ">>", "&>>", "&>", ">&", "<&", ">|", "<>", "<", ">"];
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

interface Token {
  kind: "word" | "operator" | "redirection";
  text: string;
  /** Command lines found inside the word (`$(...)` and backquotes). */
  nested: string[];
}

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

function tokenize(line: string): { tokens: Token[]; heredocs: string[] } {
  const tokens: Token[] = [];
  const heredocDelimiters: string[] = [];
  const heredocs: string[] = [];
  let i = 0;
  let word = "";
  let inWord = false;
  let nested: string[] = [];
  const endWord = () => {
    if (inWord) tokens.push({ kind: "word", text: word, nested });
    word = "";
    inWord = false;
    nested = [];
  };
  while (i < line.length) {
    const char = line[i];
    if (char === "\n" && heredocDelimiters.length > 0) {
      endWord();
      tokens.push({ kind: "operator", text: "\n", nested: [] });
      i++;
      for (const delimiter of heredocDelimiters.splice(0)) {
        const body: string[] = [];
        while (i < line.length) {
          const end = line.indexOf("\n", i);
          const current = line.slice(i, end === -1 ? line.length : end);
          i = end === -1 ? line.length : end + 1;
          if (current.replace(/^\t+/, "") === delimiter) break;
          body.push(current);
        }
        heredocs.push(body.join("\n"));
      }
      continue;
    }
    if (char === " " || char === "\t") {
      endWord();
      i++;
      continue;
    }
    if (char === "#" && !inWord) {
      while (i < line.length && line[i] !== "\n") i++;
      continue;
    }
    if (char === "\\") {
      if (line[i + 1] === "\n") i += 2; // line continuation
      else {
        word += line[i + 1] ?? "";
        inWord = true;
        i += 2;
      }
      continue;
    }
    if (char === "'") {
      const end = line.indexOf("'", i + 1);
      word += line.slice(i + 1, end === -1 ? line.length : end);
      inWord = true;
      i = end === -1 ? line.length : end + 1;
      continue;
    }
    if (char === '"') {
      i++;
      inWord = true;
      while (i < line.length && line[i] !== '"') {
        if (line[i] === "\\" && '"\\$`\n'.includes(line[i + 1] ?? "")) {
          if (line[i + 1] !== "\n") word += line[i + 1];
          i += 2;
        } else if (line.startsWith("$(", i) && !line.startsWith("$((", i)) {
          const end = matchingParen(line, i + 1);
          nested.push(line.slice(i + 2, end));
          word += line.slice(i, end + 1);
          i = end + 1;
        } else if (line[i] === "`") {
          const end = line.indexOf("`", i + 1);
          const stop = end === -1 ? line.length : end;
          nested.push(line.slice(i + 1, stop));
          word += line.slice(i, stop + 1);
          i = stop + 1;
        } else word += line[i++];
      }
      i++;
      continue;
    }
    if (line.startsWith("$(", i) && !line.startsWith("$((", i)) {
      const end = matchingParen(line, i + 1);
      nested.push(line.slice(i + 2, end));
      word += line.slice(i, end + 1);
      inWord = true;
      i = end + 1;
      continue;
    }
    if (char === "`") {
      const end = line.indexOf("`", i + 1);
      const stop = end === -1 ? line.length : end;
      nested.push(line.slice(i + 1, stop));
      word += line.slice(i, stop + 1);
      inWord = true;
      i = stop + 1;
      continue;
    }
    const redirection = REDIRECTIONS.find((operator) => line.startsWith(operator, i));
    if (redirection && (!inWord || /^\d+$/.test(word))) {
      const text = (inWord ? word : "") + redirection;
      word = "";
      inWord = false;
      nested = [];
      tokens.push({ kind: "redirection", text, nested: [] });
      i += redirection.length;
      if (redirection.startsWith("<<") && redirection !== "<<<") {
        const match = /^[ \t]*(['"]?)([^\s'";&|<>()]+)\1/.exec(line.slice(i));
        if (match) {
          heredocDelimiters.push(match[2]);
          tokens.push({ kind: "word", text: match[2], nested: [] });
          i += match[0].length;
        }
      }
      continue;
    }
    const operator = OPERATORS.find((candidate) => line.startsWith(candidate, i));
    if (operator) {
      endWord();
      tokens.push({ kind: "operator", text: operator, nested: [] });
      i += operator.length;
      continue;
    }
    word += char;
    inWord = true;
    i++;
  }
  endWord();
  return { tokens, heredocs };
}

function matchingParen(line: string, open: number): number {
  let depth = 0;
  for (let i = open; i < line.length; i++) {
    const char = line[i];
    if (char === "\\") i++;
    else if (char === "'") {
      const end = line.indexOf("'", i + 1);
      i = end === -1 ? line.length : end;
    } else if (char === "(") depth++;
    else if (char === ")" && --depth === 0) return i;
  }
  return line.length;
}
