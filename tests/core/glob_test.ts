import assert from "node:assert/strict";
import { globMatch, globProblem, globToRegExp } from "../../src/core/glob.ts";

Deno.test("globs: ** spans folders, * and ? stay in a name, [set] is one character", () => {
  const cases: [string, string, boolean][] = [
    ["src/**", "src/a/b.py", true],
    ["**/.env", ".env", true],
    ["*.md", "docs/a.md", false],
    ["test_[ab].py", "test_a.py", true],
    ["test_[ab].py", "test_c.py", false],
    ["v[0-9].txt", "v7.txt", true],
    ["[!.]*", ".hidden", false],
    ["[!.]*", "shown", true],
    ["a[/]b", "a/b", false],
    ["[[]id[]].tsx", "[id].tsx", true],
  ];
  for (const [glob, path, expected] of cases) {
    assert.equal(globMatch(glob, path), expected, `${glob} ~ ${path}`);
  }
});

Deno.test("a glob that cannot compile says why, and matches nothing", () => {
  assert.match(globProblem("[abc")!, /'\[' at character 1 is never closed/);
  assert.match(globProblem("a]")!, /']' at character 2 closes no set/);
  assert.match(globProblem("*.{ts,js}")!, /braces are not glob syntax here/);
  assert.match(globProblem("[z-a]")!, /range out of order/);
  assert.equal(globProblem("src/**/*.py"), undefined);
  assert.equal(globMatch("[abc", "[abc"), false);
  assert.throws(() => globToRegExp("[abc"), SyntaxError);
});
