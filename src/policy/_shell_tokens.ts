/**
 * Cutting a shell command line into tokens the way `sh` reads it: words after quote removal
 * (each with the command lines found in its `$(...)` and backquotes), operators, redirections,
 * and the bodies of here-documents, which start on the line after their operator.
 *
 * @module
 */

/** Operators that end a simple command. */
const OPERATORS = ["&&", "||", ";;", "|&", ";", "&", "|", "(", ")", "\n"];

/** Redirection operators, each before those that are its prefix. */
export const REDIRECTIONS = [
  "<<<",
  "<<-",
  "<<",
  ">>",
  "&>>",
  "&>",
  ">&",
  "<&",
  ">|",
  "<>",
  "<",
  ">",
];

/** One token of a command line. */
export interface Token {
  /** A word, an operator, or a redirection (with its file descriptor, as in `2>`). */
  kind: "word" | "operator" | "redirection";
  /** Its text; a word's after quote removal. */
  text: string;
  /** Command lines found inside the word (`$(...)` and backquotes). */
  nested: string[];
}

/** A command line's tokens, and its here-documents' bodies in the order their operators come. */
export interface Tokens {
  /** The tokens, in order. */
  tokens: Token[];
  /** The here-documents' bodies. */
  heredocs: string[];
}

/**
 * Cuts a command line into tokens.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { tokenize } from "./_shell_tokens.ts";
 * const { tokens } = tokenize(`p"ip" install 'x y' 2>/dev/null && echo $(id)`);
 * assert.deepEqual(tokens.map((token) => token.text).slice(0, 4), ["pip", "install", "x y", "2>"]);
 * assert.deepEqual(tokens.at(-1)?.nested, ["id"]);
 * ```
 */
export function tokenize(line: string): Tokens {
  return new Tokenizer(line).run();
}

/** The tokenizer's state: where it is in the line and the word it is building. */
class Tokenizer {
  readonly #line: string;
  readonly #tokens: Token[] = [];
  readonly #heredocs: string[] = [];
  /** Delimiters of here-documents whose bodies start after the next newline. */
  readonly #delimiters: string[] = [];
  #i = 0;
  #word = "";
  #inWord = false;
  #nested: string[] = [];

  constructor(line: string) {
    this.#line = line;
  }

  run(): Tokens {
    while (this.#i < this.#line.length) this.#step();
    this.#endWord();
    return { tokens: this.#tokens, heredocs: this.#heredocs };
  }

  /** Reads one construct at the current position. */
  #step(): void {
    const line = this.#line;
    const char = line[this.#i];
    if (char === "\n" && this.#delimiters.length > 0) return this.#heredocBodies();
    if (char === " " || char === "\t") {
      this.#endWord();
      this.#i++;
      return;
    }
    if (char === "#" && !this.#inWord) return this.#comment();
    if (char === "\\") return this.#escape();
    if (char === "'") return this.#singleQuoted();
    if (char === '"') return this.#doubleQuoted();
    if (this.#substitution() || this.#redirection()) return;
    const operator = OPERATORS.find((candidate) => line.startsWith(candidate, this.#i));
    if (operator) {
      this.#endWord();
      this.#tokens.push({ kind: "operator", text: operator, nested: [] });
      this.#i += operator.length;
      return;
    }
    this.#word += char;
    this.#inWord = true;
    this.#i++;
  }

  /** Ends the word being built, if any. */
  #endWord(): void {
    if (this.#inWord) this.#tokens.push({ kind: "word", text: this.#word, nested: this.#nested });
    this.#word = "";
    this.#inWord = false;
    this.#nested = [];
  }

  /** A newline after here-document operators: the bodies, each up to its delimiter line. */
  #heredocBodies(): void {
    const line = this.#line;
    this.#endWord();
    this.#tokens.push({ kind: "operator", text: "\n", nested: [] });
    this.#i++;
    for (const delimiter of this.#delimiters.splice(0)) {
      const body: string[] = [];
      while (this.#i < line.length) {
        const end = line.indexOf("\n", this.#i);
        const current = line.slice(this.#i, end === -1 ? line.length : end);
        this.#i = end === -1 ? line.length : end + 1;
        if (current.replace(/^\t+/, "") === delimiter) break;
        body.push(current);
      }
      this.#heredocs.push(body.join("\n"));
    }
  }

  /** A comment, up to the end of its line. */
  #comment(): void {
    while (this.#i < this.#line.length && this.#line[this.#i] !== "\n") this.#i++;
  }

  /** A backslash: a line continuation, or the next character taken as it is. */
  #escape(): void {
    const next = this.#line[this.#i + 1];
    if (next !== "\n") {
      this.#word += next ?? "";
      this.#inWord = true;
    }
    this.#i += 2;
  }

  /** A single-quoted string: taken as it is. */
  #singleQuoted(): void {
    const line = this.#line;
    const end = line.indexOf("'", this.#i + 1);
    this.#word += line.slice(this.#i + 1, end === -1 ? line.length : end);
    this.#inWord = true;
    this.#i = end === -1 ? line.length : end + 1;
  }

  /** A double-quoted string: `\` escapes only `"\$` and backquote; substitutions are found. */
  #doubleQuoted(): void {
    const line = this.#line;
    this.#i++;
    this.#inWord = true;
    while (this.#i < line.length && line[this.#i] !== '"') {
      const i = this.#i;
      if (line[i] === "\\" && '"\\$`\n'.includes(line[i + 1] ?? "")) {
        if (line[i + 1] !== "\n") this.#word += line[i + 1];
        this.#i += 2;
      } else if (!this.#substitution()) {
        this.#word += line[i];
        this.#i++;
      }
    }
    this.#i++;
  }

  /** A command substitution, `$(...)` (not arithmetic `$((`) or backquotes, if one starts here. */
  #substitution(): boolean {
    const line = this.#line;
    const i = this.#i;
    let inner: string;
    let end: number;
    if (line.startsWith("$(", i) && !line.startsWith("$((", i)) {
      const close = matchingParen(line, i + 1);
      inner = line.slice(i + 2, close);
      end = close + 1;
    } else if (line[i] === "`") {
      const close = line.indexOf("`", i + 1);
      const stop = close === -1 ? line.length : close;
      inner = line.slice(i + 1, stop);
      end = stop + 1;
    } else return false;
    this.#nested.push(inner);
    this.#word += line.slice(i, end);
    this.#inWord = true;
    this.#i = end;
    return true;
  }

  /**
   * A redirection operator, if one starts here outside a word or after a file descriptor
   * (`2>`); a here-document's delimiter word follows it.
   */
  #redirection(): boolean {
    const line = this.#line;
    const redirection = REDIRECTIONS.find((operator) => line.startsWith(operator, this.#i));
    if (!redirection || (this.#inWord && !/^\d+$/.test(this.#word))) return false;
    const text = (this.#inWord ? this.#word : "") + redirection;
    this.#word = "";
    this.#inWord = false;
    this.#nested = [];
    this.#tokens.push({ kind: "redirection", text, nested: [] });
    this.#i += redirection.length;
    if (redirection.startsWith("<<") && redirection !== "<<<") {
      const match = /^[ \t]*(['"]?)([^\s'";&|<>()]+)\1/.exec(line.slice(this.#i));
      if (match) {
        this.#delimiters.push(match[2]);
        this.#tokens.push({ kind: "word", text: match[2], nested: [] });
        this.#i += match[0].length;
      }
    }
    return true;
  }
}

/** The index of the `)` closing the `(` at `open`, skipping quoted text; the line's end if none. */
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
