/**
 * Path globs: `**` matches any number of path segments (including none), `*` any characters
 * within one segment, `?` one character within a segment, and `[abc]`, `[a-z]`, `[!abc]` one
 * character of (or not of) a set. A pattern without a `/` matches at any depth only if it starts
 * with `**`; `*.md` matches top-level Markdown files only. Braces (`{a,b}`) are not glob syntax
 * here: list each pattern instead. {@linkcode globProblem} tells what is wrong with a pattern
 * before it is used; a pattern with a problem matches nothing.
 *
 * @module
 */

const cache = new Map<string, RegExp | null>();

/**
 * Whether a relative `/`-separated path matches a glob. A glob that {@linkcode globProblem}
 * refuses matches nothing.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { globMatch } from "./glob.ts";
 * assert(globMatch("src/**", "src/a/b.py"));
 * assert(globMatch("*.md", "README.md") && !globMatch("*.md", "docs/a.md"));
 * assert(globMatch("**\/.env", "app/.env") && globMatch("**\/.env", ".env"));
 * assert(globMatch("test_[ab].py", "test_a.py") && !globMatch("[abc", "a"));
 * ```
 */
export function globMatch(pattern: string, path: string): boolean {
  let regex = cache.get(pattern);
  if (regex === undefined) {
    regex = globProblem(pattern) === undefined ? globToRegExp(pattern) : null;
    cache.set(pattern, regex);
  }
  return regex !== null && regex.test(path);
}

/**
 * What is wrong with a glob, in words, or undefined when it is a valid one.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { globProblem } from "./glob.ts";
 * assert(globProblem("src/**\/*.py") === undefined);
 * assert(globProblem("[abc")!.includes("'['"));
 * ```
 */
export function globProblem(pattern: string): string | undefined {
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i];
    if (char === "[") {
      const end = classEnd(pattern, i);
      if (end === undefined) {
        return `the '[' at character ${i + 1} is never closed: end the set with ']' ` +
          `(write '[[]' for a literal '[')`;
      }
      const set = pattern.slice(i, end + 1);
      if (!compiles(classSource(set.slice(1, -1)))) {
        return `the set '${set}' has a range out of order: write the lower character first`;
      }
      i = end;
    } else if (char === "]") {
      return `the ']' at character ${i + 1} closes no set: write '[]]' for a literal ']'`;
    } else if (char === "{" || char === "}") {
      return `braces are not glob syntax here: list each alternative as its own pattern ` +
        `(write '[${char}]' for a literal '${char}')`;
    }
  }
  return undefined;
}

/**
 * Compiles a valid glob (see {@linkcode globProblem}) into an anchored regular expression.
 *
 * @throws {SyntaxError} for a glob {@linkcode globProblem} refuses.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { globToRegExp } from "./glob.ts";
 * assert(globToRegExp("a/*.py").test("a/b.py"));
 * ```
 */
export function globToRegExp(pattern: string): RegExp {
  const problem = globProblem(pattern);
  if (problem !== undefined) throw new SyntaxError(`glob '${pattern}': ${problem}`);
  let source = "";
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i];
    if (char === "*" && pattern[i + 1] === "*") {
      const atStart = i === 0 || pattern[i - 1] === "/";
      const atEnd = i + 2 === pattern.length || pattern[i + 2] === "/";
      if (atStart && atEnd) {
        if (i + 2 === pattern.length) source += ".*";
        else {
          source += "(?:.*/)?";
          i++; // the slash after ** is part of the optional group
        }
        i++;
        continue;
      }
      source += "[^/]*";
      i++;
    } else if (char === "*") source += "[^/]*";
    else if (char === "?") source += "[^/]";
    else if (char === "[") {
      const end = classEnd(pattern, i)!;
      source += classSource(pattern.slice(i + 1, end));
      i = end;
    } else source += escapeRegExp(char);
  }
  return new RegExp(`^${source}$`);
}

// The index of the `]` closing the set opened at `start`; a `]` right after `[` or `[!` is a
// member, as in POSIX.
function classEnd(pattern: string, start: number): number | undefined {
  let i = start + 1;
  if (pattern[i] === "!" || pattern[i] === "^") i++;
  if (pattern[i] === "]") i++;
  const end = pattern.indexOf("]", i);
  return end === -1 ? undefined : end;
}

function classSource(body: string): string {
  const negated = body.startsWith("!") || body.startsWith("^");
  const members = negated ? body.slice(1) : body;
  // Ranges keep their dash; every other character is taken literally. A set never matches `/`.
  const escaped = [...members].map((char, index, chars) =>
    char === "-" && index > 0 && index < chars.length - 1 ? "-" : char.replace(/[\\\]^[-]/g, "\\$&")
  ).join("");
  return negated ? `[^/${escaped}]` : `(?!/)[${escaped}]`;
}

function compiles(source: string): boolean {
  try {
    new RegExp(source);
    return true;
  } catch {
    return false;
  }
}

function escapeRegExp(char: string): string {
  return char.replace(/[.+^${}()|[\]\\]/g, "\\$&");
}
