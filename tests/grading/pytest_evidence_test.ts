import assert from "node:assert/strict";
import { missingEvidence, pytestEvidence, runsPytest } from "../../src/grading/_pytest_evidence.ts";
import { parseHarborToml } from "../../src/task/harbor_task.ts";

Deno.test("pytest's summary lines are read in every shape it prints them", () => {
  const output = [
    "..F",
    "==== 1 failed, 2 passed, 1 warning in 0.10s ====",
    "\x1b[32m3 passed\x1b[0m\x1b[32m in 1.20s (0:00:01)\x1b[0m",
    "1 passed, 1 error in 0.02s",
    "===== no tests ran in 0.01s =====",
    "some line that says 5 passed in the middle of a sentence",
  ].join("\n");
  assert.deepEqual(pytestEvidence(output), { sessions: 4, passed: 6, failed: 2 });
  assert.deepEqual(pytestEvidence("2 tests collected in 0.01s\n"), {
    sessions: 0,
    passed: 0,
    failed: 0,
  });
});

Deno.test("a script runs pytest when a line that is not a comment names it", () => {
  assert(runsPytest("cd /app\npython3 -m pytest -q /tests\n"));
  assert(runsPytest("uv run pytest /tests/test_outputs.py -rA"));
  assert(runsPytest("/usr/bin/py.test /tests"));
  assert(!runsPytest("# pytest would be nice\ngrep -q ok /app/out.txt\n"));
  assert(!runsPytest("python3 /tests/check_pytest_free.py\n"));
});

Deno.test("the evidence a passing reward needs", () => {
  const script = "python3 -m pytest /tests\n";
  assert.equal(missingEvidence(script, "2 passed in 0.1s\n", true), null);
  assert.match(missingEvidence(script, "1 failed, 1 passed in 0.1s\n", true)!, /1 failed/);
  // A partial reward may come from a suite with failures.
  assert.equal(missingEvidence(script, "1 failed, 3 passed in 0.1s\n", false), null);
  assert.match(missingEvidence(script, "2 skipped in 0.1s\n", false)!, /no test passed/);
  assert.match(missingEvidence(script, "", true)!, /no pytest summary line/);
  assert.equal(missingEvidence("test -f /app/out\n", "", true), null);
});

Deno.test("[verifier].allowed_hijack_paths is read from task.toml, absolute paths only", () => {
  const toml = (paths: string) => `version = "1.0"\n[verifier]\nallowed_hijack_paths = ${paths}\n`;
  assert.deepEqual(
    parseHarborToml(toml('["/etc/ld.so.cache"]'), "task.toml").verifier.allowedHijackPaths,
    ["/etc/ld.so.cache"],
  );
  assert.equal(
    parseHarborToml('version = "1.0"\n', "task.toml").verifier.allowedHijackPaths,
    undefined,
  );
  assert.throws(
    () => parseHarborToml(toml('["etc/ld.so.cache", "/a/../b"]'), "task.toml"),
    /allowed_hijack_paths.*not an absolute path/s,
  );
});
