import assert from "node:assert/strict";
import { join } from "node:path";
import { type ComparedRun, compareRuns } from "../../src/stats/compare.ts";
import { decideGate, parseGate } from "../../src/stats/gate.ts";
import { scratchDir } from "../_verdict.ts";
import { runVerdictInProcess } from "../cli/_in_process.ts";
import { type SyntheticTrial, writeRun } from "../_synthetic_runs.ts";

const run = (
  id: string,
  trials: SyntheticTrial[],
  overrides: Partial<ComparedRun> = {},
): ComparedRun => ({
  id,
  suite_digest: "d",
  tasks: [...new Set(trials.map(([task]) => task))],
  repeat: 1,
  trials: trials.map(([task, repeat, verdict]) => ({
    task,
    repeat,
    verdict,
    session: `${id}-${task}-${repeat}`,
  })),
  ...overrides,
});
const tasks = (count: number, verdict: (i: number) => "pass" | "fail"): SyntheticTrial[] =>
  Array.from({ length: count }, (_, i) => [`task-${String(i).padStart(2, "0")}`, 0, verdict(i)]);
const gate = parseGate("max_drop_pp: 10\n", "gate.yaml");

Deno.test("compare pairs by (task, repeat), counts b and c, lists every flip", () => {
  const base = run(
    "base",
    [["a", 0, "pass"], ["a", 1, "fail"], ["b", 0, "pass"], ["c", 0, "fail"]],
    { repeat: 2 },
  );
  const candidate = run("cand", [["a", 0, "fail"], ["a", 1, "pass"], ["b", 0, "pass"], [
    "c",
    0,
    "fail",
  ]], { repeat: 2 });
  const comparison = compareRuns(base, candidate);
  assert.ok(comparison.comparable);
  assert.deepEqual([comparison.pairs, comparison.b, comparison.c, comparison.p_value], [
    4,
    1,
    1,
    1,
  ]);
  assert.deepEqual(
    comparison.flips.map((
      flip,
    ) => [flip.task, flip.repeat, flip.direction, flip.base_session, flip.candidate_session]),
    [
      ["a", 0, "pass→fail", "base-a-0", "cand-a-0"],
      ["a", 1, "fail→pass", "base-a-1", "cand-a-1"],
    ],
  );
});

Deno.test("flips are listed by task, then by repeat as a number (#2 before #10)", () => {
  const repeats = [2, 10, 1];
  const base = run("base", repeats.map((repeat) => ["a", repeat, "pass"]), { repeat: 11 });
  const candidate = run("cand", repeats.map((repeat) => ["a", repeat, "fail"]), { repeat: 11 });
  const comparison = compareRuns(base, candidate);
  assert.ok(comparison.comparable);
  assert.deepEqual(comparison.flips.map((flip) => flip.repeat), [1, 2, 10]);
});

Deno.test("incomparable runs are reported with what differs and no numbers", () => {
  const base = run("base", [["a", 0, "pass"]]);
  const comparison = compareRuns(
    base,
    run("cand", [["a", 0, "pass"], ["b", 0, "pass"]], { suite_digest: "e", repeat: 3 }),
  );
  assert.equal(comparison.comparable, false);
  assert.ok(!comparison.comparable && comparison.differences.length === 3);
  assert.ok(!("b" in comparison) && !("p_value" in comparison));
});

Deno.test("the gate fails closed: incomparable, too few cases, too big a drop, a significant regression", () => {
  const incomparable = decideGate(
    gate,
    compareRuns(
      run("a", tasks(20, () => "pass")),
      run("b", tasks(20, () => "pass"), { repeat: 2 }),
    ),
  );
  assert.deepEqual(incomparable, {
    passed: false,
    reasons: ["the runs cannot be compared: repeat count 1 vs 2"],
  });

  const few = decideGate(
    gate,
    compareRuns(run("a", tasks(5, () => "pass")), run("b", tasks(5, () => "pass"))),
  );
  assert.deepEqual(few, {
    passed: false,
    reasons: ["only 5 paired cases, fewer than min_cases 10"],
  });

  // 40 cases, 5 pass→fail and 0 fail→pass: a 12.5 point drop, p = 0.0625 (not significant at 0.05).
  const drop = decideGate(
    gate,
    compareRuns(
      run("a", tasks(40, () => "pass")),
      run("b", tasks(40, (i) => i < 5 ? "fail" : "pass")),
    ),
  );
  assert.deepEqual(drop, {
    passed: false,
    reasons: ["the pass rate dropped 12.5 points, more than max_drop_pp 10"],
  });

  // 200 cases, 12 pass→fail and 2 fail→pass: a 5 point drop (allowed) but p = 0.0129 < 0.05.
  const base = tasks(200, (i) => (i < 190 ? "pass" : "fail"));
  const candidate = tasks(
    200,
    (i) => (i < 12 ? "fail" : i < 190 ? "pass" : i < 192 ? "pass" : "fail"),
  );
  const regression = decideGate(gate, compareRuns(run("a", base), run("b", candidate)));
  assert.equal(regression.passed, false);
  assert.deepEqual(regression.reasons.length, 1);
  assert.match(
    regression.reasons[0],
    /^a significant regression: 12 pass→fail against 2 fail→pass, p = 0\.0129 < alpha 0\.05$/,
  );
});

Deno.test("the gate passes a comparable run with enough cases and no significant drop", () => {
  const outcome = decideGate(
    gate,
    compareRuns(
      run("a", tasks(30, (i) => (i < 25 ? "pass" : "fail"))),
      run("b", tasks(30, (i) => (i < 24 || i === 29 ? "pass" : "fail"))),
    ),
  );
  assert.deepEqual(outcome, { passed: true, reasons: [] });
});

Deno.test("gate files are strict: unknown keys and bad values are errors naming the field", () => {
  assert.throws(
    () => parseGate("max_drop_pp: 5\nmax_drop: 3\n", "g.yaml"),
    /g\.yaml: max_drop: unknown key\. Fix: did you mean 'max_drop_pp'\?/,
  );
  assert.throws(() => parseGate("alpha: 0.05\n", "g.yaml"), /g\.yaml: max_drop_pp: is missing/);
  assert.throws(() => parseGate("max_drop_pp: 5\nalpha: 2\n", "g.yaml"), /alpha/);
  assert.deepEqual(parseGate("max_drop_pp: 5\nalpha: 0.01\nmin_cases: 30\n", "g.yaml"), {
    max_drop_pp: 5,
    alpha: 0.01,
    min_cases: 30,
  });
});

Deno.test("gate bounds say what the schema holds: alpha below 1, a finite drop", () => {
  assert.throws(
    () => parseGate("max_drop_pp: 5\nalpha: 1\n", "g.yaml"),
    /g\.yaml: alpha: must be below 1, got number 1\. Fix: use a value below 1/,
  );
  assert.throws(
    () => parseGate("max_drop_pp: 5\nalpha: 0\n", "g.yaml"),
    /g\.yaml: alpha: must be above 0, got number 0\. Fix: use a value above 0/,
  );
  assert.throws(
    () => parseGate("max_drop_pp: .nan\n", "g.yaml"),
    /g\.yaml: max_drop_pp: expected a number, got not-a-number \(\.nan\)\. Fix: write a finite number/,
  );
});

Deno.test("verdict compare --gate exits 1 when the gate fails closed and 0 when it passes; --json has the fields", async () => {
  await using home = await scratchDir("gate");
  await writeRun(home.path, "base0000base", tasks(12, () => "pass"));
  await writeRun(home.path, "cand0000cand", tasks(12, (i) => (i === 0 ? "fail" : "pass")));
  await writeRun(home.path, "othr0000othr", tasks(12, () => "pass"), { suite_digest: "digest-2" });
  const gateFile = join(home.path, "gate.yaml");
  await Deno.writeTextFile(gateFile, "max_drop_pp: 10\n");
  const passed = await runVerdictInProcess([
    "compare",
    "base0000base",
    "cand0000cand",
    "--gate",
    gateFile,
    "--json",
    "--home",
    home.path,
  ]);
  assert.equal(passed.code, 0, passed.stderr);
  const json = JSON.parse(passed.stdout);
  assert.deepEqual([
    json.comparable,
    json.b,
    json.c,
    json.p_value,
    json.flips.length,
    json.gate.passed,
  ], [true, 1, 0, 1, 1, true]);
  const incomparable = await runVerdictInProcess([
    "compare",
    "base0000base",
    "othr0000othr",
    "--gate",
    gateFile,
    "--home",
    home.path,
  ]);
  assert.equal(incomparable.code, 1);
  assert.match(incomparable.stdout, /are incomparable:\n {2}- suite digest/);
  assert.match(incomparable.stdout, /gate: FAILED\n {2}- the runs cannot be compared/);
  const plain = await runVerdictInProcess([
    "compare",
    "base0000base",
    "othr0000othr",
    "--home",
    home.path,
  ]);
  assert.equal(plain.code, 0, "without a gate, incomparable is an answer, not a failure");
  const badGate = join(home.path, "bad.yaml");
  await Deno.writeTextFile(badGate, "max_drop_pp: 1\nbeta: 2\n");
  const refused = await runVerdictInProcess([
    "compare",
    "base0000base",
    "cand0000cand",
    "--gate",
    badGate,
    "--home",
    home.path,
  ]);
  assert.equal(refused.code, 2);
  assert.match(refused.stderr, /bad\.yaml: beta: unknown key/);
  for (
    const [path, problem] of [[join(home.path, "nope.yaml"), "does not exist"], [
      home.path,
      "is a folder",
    ]]
  ) {
    const unreadable = await runVerdictInProcess([
      "compare",
      "base0000base",
      "cand0000cand",
      "--gate",
      path,
      "--home",
      home.path,
    ]);
    assert.equal(unreadable.code, 2, unreadable.stderr);
    assert.ok(unreadable.stderr.includes(`${path}: the gate file ${problem}`), unreadable.stderr);
  }
});
