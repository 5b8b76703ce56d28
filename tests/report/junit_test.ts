import assert from "node:assert/strict";
import { join } from "node:path";
import { renderJunit } from "../../src/report/junit.ts";
import type { Results } from "../../src/report/results.ts";
import type { TrialRecord } from "../../src/store/trial_record.ts";
import { requireDocker } from "../_docker.ts";
import { syntheticRecord } from "../_synthetic_runs.ts";
import { PROJECT_ROOT, runVerdict, scratchDir } from "../_verdict.ts";
import { runVerdictInProcess } from "../cli/_in_process.ts";
import { startRun, waitForContainers } from "../eval/_live_run.ts";

/** The Jenkins xUnit plugin's JUnit schema, the dialect CI servers read. */
const SCHEMA = join(PROJECT_ROOT, "tests", "fixtures", "junit", "junit-10.xsd");

async function xmllint(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let output;
  try {
    output = await new Deno.Command("xmllint", { args, stdout: "piped", stderr: "piped" })
      .output();
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
    throw new Error(
      "this test validates JUnit XML with xmllint, which is not installed: " +
        "apt-get install -y libxml2-utils",
    );
  }
  const decoder = new TextDecoder();
  return {
    code: output.code,
    stdout: decoder.decode(output.stdout),
    stderr: decoder.decode(output.stderr),
  };
}

async function assertValid(file: string): Promise<void> {
  const checked = await xmllint(["--noout", "--schema", SCHEMA, file]);
  assert.equal(
    checked.code,
    0,
    `${file} does not validate against junit-10.xsd:\n${checked.stderr}`,
  );
}

/** An XPath 1.0 expression's value in the file, as xmllint prints it. */
async function xpath(file: string, expression: string): Promise<string> {
  const read = await xmllint(["--xpath", expression, file]);
  assert.equal(read.code, 0, `xmllint --xpath '${expression}' ${file}: ${read.stderr}`);
  return read.stdout.trim();
}

function results(id: string, agent: string, trials: TrialRecord[]): Results {
  const count = (bucket: string) => trials.filter((trial) => trial.bucket === bucket).length;
  const passed = count("pass");
  return {
    schema: "verdict.results/1",
    run: {
      id,
      status: "finished",
      created_at: "2026-12-02T05:00:00.000Z",
      agent,
      model: agent === "loop" ? "scripted" : null,
      categories: { "fix-it": "bugfix", "shell-it": "shell" },
    },
    summary: {
      trials: trials.length + 1,
      finished: trials.length,
      passed,
      failed: trials.length - passed,
      pass_rate: trials.length === 0 ? null : passed / trials.length,
      buckets: {
        pass: passed,
        agent_failure: count("agent_failure"),
        evaluator_error: count("evaluator_error"),
        infrastructure_error: count("infrastructure_error"),
      },
    },
    trials,
    unfinished: [{ task: "shell-it", repeat: 2, session: `${id}-left` }],
  };
}

/** Everything XML 1.0 cannot carry or must escape, in one reason. */
const HOSTILE =
  'a "quoted" <tag> & \x1b[31mred\x1b[0m\x00\x07\x0b\x1f\uFFFE\uFFFF\uD800 end\r\nnext';

Deno.test("JUnit XML: one test case per trial, counts per bucket, hostile text escaped, valid against junit-10.xsd", async () => {
  await using scratch = await scratchDir("junit");
  const failed: TrialRecord = {
    ...syntheticRecord("s-fail", "fix-it", 1, "fail"),
    reason: HOSTILE,
    checks: [{ kind: "no_new_files", passed: false, detail: "added x.txt" }],
    success: { script: "test.sh", exit_code: 1, timed_out: false, output: "FAIL: 1 != 2\n" },
  };
  const evaluatorError: TrialRecord = {
    ...syntheticRecord("s-eval", "shell-it", 0, "fail"),
    bucket: "evaluator_error",
    reason: "tests/test.sh is not executable",
  };
  const infrastructureError: TrialRecord = {
    ...syntheticRecord("s-infra", "shell-it", 1, "fail"),
    bucket: "infrastructure_error",
    reason: "the model endpoint stayed down after 3 retries",
    stop_reason: null,
  };
  const sweep = [
    results("run-loop", "loop", [
      syntheticRecord("s-pass", "fix-it", 0, "pass"),
      failed,
      evaluatorError,
      infrastructureError,
    ]),
    results("run-nop", "nop", [syntheticRecord("s-nop", "fix-it", 0, "fail")]),
  ];
  const file = join(scratch.path, "junit.xml");
  await Deno.writeTextFile(file, renderJunit(sweep));
  await assertValid(file);

  assert.equal(await xpath(file, "count(/testsuites/testsuite)"), "2");
  assert.equal(await xpath(file, "string(/testsuites/@tests)"), "7");
  assert.equal(await xpath(file, "string(/testsuites/@failures)"), "2");
  assert.equal(await xpath(file, "string(/testsuites/@errors)"), "4");
  const loop = "/testsuites/testsuite[@id='run-loop']";
  assert.equal(
    await xpath(file, `string(${loop}/@name)`),
    "verdict run run-loop: loop with scripted",
  );
  for (const [attribute, value] of [["tests", "5"], ["failures", "1"], ["errors", "3"]]) {
    assert.equal(await xpath(file, `string(${loop}/@${attribute})`), value, attribute);
  }
  assert.equal(await xpath(file, `count(${loop}/testcase)`), "5");
  assert.equal(await xpath(file, `count(${loop}/testcase[not(failure) and not(error)])`), "1");
  assert.equal(await xpath(file, `string(${loop}/testcase[1]/@name)`), "fix-it#0");
  assert.equal(await xpath(file, `string(${loop}/testcase[1]/@classname)`), "fix-it");
  assert.equal(await xpath(file, `string(${loop}/testcase[1]/@time)`), "8.000");
  assert.equal(
    await xpath(file, `string(${loop}/testcase[@name='fix-it#1']/failure/@type)`),
    "agent_failure",
  );
  // The reason reads back whole: markup and line breaks kept, colour codes dropped, every
  // character XML 1.0 forbids replaced.
  assert.equal(
    await xpath(file, `string(${loop}/testcase[@name='fix-it#1']/failure/@message)`),
    'a "quoted" <tag> & red\uFFFD\uFFFD\uFFFD\uFFFD\uFFFD\uFFFD\uFFFD end\r\nnext',
  );
  const detail = await xpath(file, `string(${loop}/testcase[@name='fix-it#1']/failure)`);
  assert.match(detail, /check no_new_files failed: added x\.txt/);
  assert.match(detail, /success script test\.sh exited 1; its output ends:\nFAIL: 1 != 2/);
  const errorTypes = await xpath(file, `${loop}/testcase/error/@type`);
  assert.match(errorTypes, /type="evaluator_error"[\s\S]*type="infrastructure_error"/);
  const summary = await xpath(file, `string(${loop}/testcase[@name='shell-it#1']/system-out)`);
  assert.match(summary, /^task shell-it \(shell\), repeat 1$/m);
  assert.match(summary, /^verdict fail, bucket infrastructure_error: the model endpoint/m);
  assert.match(summary, /^session s-infra \('verdict show s-infra' prints its trajectory\)$/m);
  assert.match(summary, /^agent stopped: never ran; /m);
  assert.match(summary, /^tokens 8010 input, 900 output; cost \$0\.012500$/m);
  // The unfinished trial is an error of its own, never a silent gap, and named on the suite.
  assert.equal(
    await xpath(file, `string(${loop}/testcase[@name='shell-it#2']/error/@type)`),
    "unfinished",
  );
  assert.match(
    await xpath(file, `string(${loop}/testcase[@name='shell-it#2']/error/@message)`),
    /^no verdict: the trial did not finish \(run finished\); 'verdict resume run-loop' finishes them$/,
  );
  assert.match(
    await xpath(file, `string(${loop}/system-out)`),
    /^1 of 5 trials have no verdict \(run finished\); 'verdict resume run-loop' finishes them$/,
  );
});

Deno.test("JUnit XML of no runs and of a run with no finished trial still validates", async () => {
  await using scratch = await scratchDir("junit");
  const file = join(scratch.path, "empty.xml");
  await Deno.writeTextFile(file, renderJunit([]));
  await assertValid(file);
  assert.equal(await xpath(file, "string(/testsuites/@tests)"), "0");
  await Deno.writeTextFile(file, renderJunit([{ ...results("r", "nop", []), unfinished: [] }]));
  await assertValid(file);
  assert.equal(await xpath(file, "string(/testsuites/testsuite/@tests)"), "0");
});

Deno.test("eval --junit writes a file that validates and counts the trials; report --junit writes the same", async () => {
  await requireDocker();
  await using home = await scratchDir("junit-eval");
  const junit = join(home.path, "eval.xml");
  // nop passes the fixture that always passes and fails the real task: one of each, twice.
  const evaluated = await runVerdict([
    "eval",
    "tests/fixtures/check/always-passes",
    "tasks/shell-count-errors",
    "--agent",
    "nop",
    "--repeat",
    "2",
    "--json",
    "--junit",
    junit,
    "--home",
    home.path,
  ]);
  assert.equal(evaluated.code, 0, evaluated.stderr);
  const { run } = JSON.parse(evaluated.stdout) as Results;
  assert.match(evaluated.stderr, new RegExp(`^junit: ${junit}$`, "m"));
  await assertValid(junit);
  assert.equal(await xpath(junit, "count(//testcase)"), "4");
  assert.equal(await xpath(junit, "string(/testsuites/testsuite/@tests)"), "4");
  assert.equal(await xpath(junit, "string(/testsuites/testsuite/@failures)"), "2");
  assert.equal(await xpath(junit, "string(/testsuites/testsuite/@errors)"), "0");
  assert.equal(
    await xpath(junit, "count(//testcase[@classname='shell-count-errors']/failure)"),
    "2",
  );
  assert.equal(
    await xpath(junit, "string(//testcase[@name='shell-count-errors#1']/failure/@type)"),
    "agent_failure",
  );
  assert.equal(
    await xpath(
      junit,
      "count(//testcase[@classname='always-passes'][not(*[name()!='system-out'])])",
    ),
    "2",
  );

  const again = join(home.path, "report.xml");
  const reported = await runVerdictInProcess([
    "report",
    run.id,
    "--junit",
    again,
    "--home",
    home.path,
  ]);
  assert.equal(reported.code, 0, reported.stderr);
  assert.match(reported.stdout, new RegExp(`${again}\n$`));
  assert.equal(await Deno.readTextFile(again), await Deno.readTextFile(junit));
});

Deno.test("--junit outside the folders Verdict may write is refused with exit 2, before any work", async () => {
  await using home = await scratchDir("junit-refused");
  for (const command of [["eval", "tasks/shell-count-errors"], ["report", "no-such-run"]]) {
    const refused = await runVerdict([
      ...command,
      "--junit",
      "/etc/verdict-junit.xml",
      "--home",
      home.path,
    ]);
    assert.equal(refused.code, 2, refused.stderr);
    assert.match(refused.stderr, /cannot write \/etc\/verdict-junit\.xml, given as --junit/);
  }
});

Deno.test("an interrupted run's JUnit file counts its unfinished trials as errors, so it never reads green", async () => {
  const docker = await requireDocker();
  await using home = await scratchDir("junit-interrupted");
  const junit = join(home.path, "interrupted.xml");
  const live = await startRun([
    "eval",
    "--agent",
    "oracle",
    "tests/fixtures/slow",
    "--repeat",
    "2",
    "--seed",
    "26",
    "--concurrency",
    "2",
    "--junit",
    junit,
    "--home",
    home.path,
  ]);
  await waitForContainers(docker, `verdict.run=${live.run}`, 2);
  live.child.kill("SIGINT");
  const { code, stderr } = await live.finish();
  assert.equal(code, 130, stderr);
  await assertValid(junit);
  assert.equal(await xpath(junit, "string(/testsuites/@tests)"), "2");
  assert.equal(await xpath(junit, "string(/testsuites/@errors)"), "2");
  assert.equal(await xpath(junit, "count(//testcase/error[@type='unfinished'])"), "2");
  assert.match(
    await xpath(junit, "string(/testsuites/testsuite/system-out)"),
    /^2 of 2 trials have no verdict \(run interrupted\)/,
  );
});
