/**
 * Path globs: `**` matches any number of path segments (including none), `*` any characters
 * within one segment, `?` one character within a segment. A pattern without a `/` matches at any
 * depth only if it starts with `**`; `*.md` matches top-level Markdown files only.
 *
 * @module
 */

const cache = new Map<string, RegExp>();

/**
 * Whether a relative `/`-separated path matches a glob.
 *
 * @example
 * ```ts
 * import { globMatch } from "./glob.ts";
 * console.assert(globMatch("src/**", "src/a/b.py"));
 * console.assert(globMatch("*.md", "README.md") && !globMatch("*.md", "docs/a.md"));
 * console.assert(globMatch("**\/.env", "app/.env") && globMatch("**\/.env", ".env"));
 * ```
 */
export function globMatch(pattern: string, path: string): boolean {
  let regex = cache.get(pattern);
  if (regex === undefined) {
    regex = globToRegExp(pattern);
    cache.set(pattern, regex);
  }
  return regex.test(path);
}

/**
 * Compiles a glob into an anchored regular expression.
 *
 * @example
 * ```ts
 * import { globToRegExp } from "./glob.ts";
 * console.assert(globToRegExp("a/*.py").test("a/b.py"));
 * ```
 */
export function globToRegExp(pattern: string): RegExp {
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
    else source += char.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${source}$`);
}
