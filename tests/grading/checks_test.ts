import assert from "node:assert/strict";
import { type CheckResult, runChecks } from "../../src/grading/checks.ts";
import { checkRequirements } from "../../src/grading/requirements.ts";
import { ZERO_COUNTERS } from "../../src/store/run_counters.ts";
import { type SealedTree, sealEntries } from "../../src/workspace/snapshot.ts";
import type { CheckSpec } from "../../src/task/manifest.ts";
import type { TreeEntry } from "../../src/task/file_tree.ts";
import { usd } from "../../src/core/money.ts";

const file = (path: string, text: string, mode = 0o644): TreeEntry => ({
  path,
  type: "file",
  mode,
  data: new TextEncoder().encode(text),
});
const dir = (path: string): TreeEntry => ({ path, type: "dir", mode: 0o755 });

const initial = sealEntries([
  dir("src"),
  file("src/total.py", "def total(x):\n    return sum(x)\n"),
  dir("tests"),
  file("tests/test_total.py", "def test_total():\n    assert total([1]) == 1\n"),
  file("README.md", "# Totals\n"),
]);

function check(spec: CheckSpec, final: SealedTree): CheckResult {
  const contents = new Map([...initial.contents, ...final.contents]);
  return runChecks([spec], { initial, final, read: (hash) => contents.get(hash)! })[0];
}

function edited(...entries: TreeEntry[]): SealedTree {
  const byPath = new Map<string, TreeEntry>([
    dir("src"),
    file("src/total.py", "def total(x):\n    return sum(x)\n"),
    dir("tests"),
    file("tests/test_total.py", "def test_total():\n    assert total([1]) == 1\n"),
    file("README.md", "# Totals\n"),
  ].map((entry) => [entry.path, entry]));
  for (const entry of entries) byPath.set(entry.path, entry);
  return sealEntries([...byPath.values()]);
}

Deno.test("files_unchanged catches content and mode changes of pinned files", () => {
  const spec: CheckSpec = { kind: "files_unchanged", args: ["tests/test_total.py"] };
  assert.equal(check(spec, edited(file("src/total.py", "fixed"))).passed, true);
  const content = check(spec, edited(file("tests/test_total.py", "def test_total(): pass\n")));
  assert.deepEqual([content.passed, content.detail], [
    false,
    "tests/test_total.py modified (content)",
  ]);
  const mode = check(
    spec,
    edited(file("tests/test_total.py", "def test_total():\n    assert total([1]) == 1\n", 0o755)),
  );
  assert.deepEqual([mode.passed, mode.detail], [false, "tests/test_total.py modified (mode)"]);
});

Deno.test("changed_paths_within allows new folders of allowed files, not stray ones", () => {
  const spec: CheckSpec = { kind: "changed_paths_within", args: ["src/**", "*.md"] };
  assert.equal(check(spec, edited(file("src/total.py", "x"), file("NOTES.md", "n"))).passed, true);
  assert.equal(check(spec, edited(dir("src/util"), file("src/util/helpers.py", "h"))).passed, true);
  const stray = check(spec, edited(file("tests/test_total.py", "pass\n")));
  assert.deepEqual([stray.passed, stray.detail], [
    false,
    "outside src/**, *.md: tests/test_total.py modified (content)",
  ]);
  assert.equal(
    check(spec, edited(dir("junk"))).passed,
    false,
    "an empty folder outside the limits",
  );
  assert.equal(
    check(spec, edited(file("docs/a.md", "x"), dir("docs"))).passed,
    false,
    "*.md is top level only",
  );
});

Deno.test("no_new_skips counts skip markers before and after", () => {
  const spec: CheckSpec = { kind: "no_new_skips", args: {} };
  const skipped = edited(file(
    "tests/test_total.py",
    "import pytest\n@pytest.mark.skip(reason='flaky')\ndef test_total():\n    assert total([1]) == 1\n",
  ));
  assert.deepEqual(check(spec, skipped), {
    kind: "no_new_skips",
    passed: false,
    detail: "new skip or xfail markers in tests/test_total.py (+1)",
  });
  assert.equal(
    check(spec, edited(file("tests/test_new.py", "def test_x():\n    pytest.skip('no')\n"))).passed,
    false,
  );
  assert.equal(
    check(spec, edited(file("src/total.py", "def total(x):\n    return sum(x) + 0\n"))).passed,
    true,
  );
  const scoped: CheckSpec = { kind: "no_new_skips", args: { paths: ["src/**"] } };
  assert.equal(check(scoped, skipped).passed, true, "outside the scope");
});

Deno.test("paths_exist, paths_absent, file_contains, file_not_contains and max_changed_files", () => {
  const final = edited(
    file("src/total.py", "def total(x):\n    return round(sum(x), 2)\n"),
    file("CHANGELOG.md", "fixed"),
  );
  assert.equal(
    check({ kind: "paths_exist", args: ["src/total.py", "CHANGELOG.md"] }, final).passed,
    true,
  );
  assert.deepEqual(
    check({ kind: "paths_exist", args: ["src/nope.py"] }, final).detail,
    "missing: src/nope.py",
  );
  assert.equal(check({ kind: "paths_absent", args: ["CHANGELOG.md"] }, final).passed, false);
  assert.equal(
    check({ kind: "file_contains", args: { path: "src/total.py", text: "round(" } }, final).passed,
    true,
  );
  assert.equal(
    check(
      { kind: "file_contains", args: { path: "src/total.py", pattern: "^\\s+return round" } },
      final,
    ).passed,
    true,
  );
  assert.equal(
    check({ kind: "file_not_contains", args: { path: "src/total.py", text: "round(" } }, final)
      .passed,
    false,
  );
  assert.equal(
    check({ kind: "file_contains", args: { path: "src/missing.py", text: "x" } }, final).passed,
    false,
  );
  assert.equal(check({ kind: "max_changed_files", args: 2 }, final).passed, true);
  assert.equal(check({ kind: "max_changed_files", args: 1 }, final).passed, false);
});

Deno.test("requirements compare the harness's counters, and name the model-only ones", () => {
  const counters = {
    ...ZERO_COUNTERS,
    steps: 5,
    deniedCalls: 1,
    costUsd: usd("0.0401"),
    finished: true,
  };
  const results = checkRequirements(
    {
      min_steps: 3,
      max_steps: 4,
      min_denied_calls: 1,
      max_cost_usd: 0.04,
      finished: true,
      resumed: true,
    },
    counters,
  );
  assert.deepEqual(results.map((result) => [result.key, result.passed, result.modelOnly]), [
    ["min_steps", true, true],
    ["max_steps", false, false],
    ["min_denied_calls", true, true],
    ["max_cost_usd", false, false],
    ["finished", true, false],
    ["resumed", false, true],
  ]);
  assert.equal(results[3].detail, "max_cost_usd 0.040000: got 0.040100");
  const unknown = checkRequirements({ max_cost_usd: 1 }, { ...counters, costUsd: null });
  assert.deepEqual([unknown[0].passed, unknown[0].detail], [
    false,
    "max_cost_usd 1.000000: got unknown",
  ]);
});
