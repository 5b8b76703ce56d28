/**
 * JUnit XML for CI servers (Jenkins, GitLab, GitHub test reporters), in the dialect of the Jenkins
 * xUnit plugin's `junit-10.xsd`: one `<testsuite>` per run inside `<testsuites>`, one
 * `<testcase>` per trial, named `task#repeat` with the task id as its class. A pass is a
 * passed test case, an `agent_failure` a `<failure>`, an `evaluator_error` or
 * `infrastructure_error` an `<error>` (the harness, not the agent, failed); the bucket is the
 * element's `type` and the trial's reason its `message`. A trial with no verdict (an interrupted
 * run) is an `<error type="unfinished">`, so a cut-short run never reads green. The trial's summary is its
 * `<system-out>`. The text depends on the results alone, so `verdict report RUN --junit` writes
 * the same file as `verdict eval --junit`.
 *
 * @module
 */
import type { ReportedCheck, ReportedScript, TrialRecord } from "../store/trial_record.ts";
import { type Results, RUN_FACTS, type UnfinishedTrial } from "./results.ts";
import { dollars } from "./stats_text.ts";
import { xmlAttribute, xmlText } from "./_xml.ts";

/** The run keys a test suite lists as `<property name="run.KEY">`, when present. */
const RUN_PROPERTIES = ["id", ...RUN_FACTS] as const;

/**
 * Renders runs as one JUnit XML document; a sweep's runs are its test suites.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { renderJunit } from "./junit.ts";
 * const xml = renderJunit([{
 *   schema: "verdict.results/1",
 *   run: { id: "abc", status: "finished", created_at: "2026-01-01T00:00:00.000Z", agent: "nop" },
 *   summary: {
 *     trials: 0, finished: 0, passed: 0, failed: 0, pass_rate: null,
 *     buckets: { pass: 0, agent_failure: 0, evaluator_error: 0, infrastructure_error: 0 },
 *   },
 *   trials: [],
 * }]);
 * assert.match(xml, /<testsuite name="verdict run abc: nop" id="abc" tests="0"/);
 * ```
 */
export function renderJunit(runs: readonly Results[]): string {
  const suites = runs.map(testSuite);
  const total = (key: keyof Counts) => suites.reduce((sum, suite) => sum + suite.counts[key], 0);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="verdict" tests="${total("tests")}" failures="${total("failures")}" ` +
    `errors="${total("errors")}" time="${seconds(total("durationMs"))}">`,
    ...suites.flatMap((suite) => suite.lines),
    "</testsuites>",
    "",
  ].join("\n");
}

interface Counts {
  tests: number;
  failures: number;
  errors: number;
  durationMs: number;
}

function testSuite(results: Results): { counts: Counts; lines: string[] } {
  const { run, summary, trials } = results;
  const unfinished = results.unfinished ?? [];
  const counts: Counts = {
    tests: trials.length + unfinished.length,
    failures: trials.filter((trial) => trial.bucket === "agent_failure").length,
    errors: trials.filter((trial) => trial.bucket !== "pass" && trial.bucket !== "agent_failure")
      .length + unfinished.length,
    durationMs: trials.reduce((sum, trial) => sum + trial.duration_ms, 0),
  };
  const model = typeof run.model === "string" ? ` with ${run.model}` : "";
  const name = `verdict run ${run.id}: ${String(run.agent ?? "agent")}${model}`;
  const properties = [
    ...RUN_PROPERTIES.filter((key) => run[key] !== undefined && run[key] !== null)
      .map((key) => [`run.${key}`, String(run[key])]),
    ["summary.trials", String(summary.trials)],
    ["summary.finished", String(summary.finished)],
  ];
  const categories = isStringRecord(run.categories) ? run.categories : {};
  const resume = `'verdict resume ${run.id}' finishes them`;
  return {
    counts,
    lines: [
      `  <testsuite name="${xmlAttribute(name)}" id="${xmlAttribute(run.id)}" ` +
      `tests="${counts.tests}" failures="${counts.failures}" errors="${counts.errors}" ` +
      `skipped="0" time="${seconds(counts.durationMs)}" ` +
      // Ant's form: no fraction, no zone (the time is UTC, as in results.json).
      `timestamp="${xmlAttribute(run.created_at.slice(0, 19))}">`,
      "    <properties>",
      ...properties.map(([key, value]) =>
        `      <property name="${xmlAttribute(key)}" value="${xmlAttribute(value)}"/>`
      ),
      "    </properties>",
      ...trials.flatMap((trial) => testCase(trial, categories[trial.task])),
      ...unfinished.flatMap((trial) => unfinishedCase(trial, run.status, resume)),
      ...(unfinished.length > 0
        ? [
          `    <system-out>${
            xmlText(
              `${unfinished.length} of ${summary.trials} trials have no verdict ` +
                `(run ${run.status}); ${resume}`,
            )
          }</system-out>`,
        ]
        : []),
      "  </testsuite>",
    ],
  };
}

function testCase(trial: TrialRecord, category: string | undefined): string[] {
  const outcome = trial.bucket === "pass" ? [] : [
    `      <${trial.bucket === "agent_failure" ? "failure" : "error"} ` +
    `type="${xmlAttribute(trial.bucket)}" message="${xmlAttribute(trial.reason)}">` +
    `${xmlText(failureDetail(trial))}</${trial.bucket === "agent_failure" ? "failure" : "error"}>`,
  ];
  return [
    `    <testcase name="${xmlAttribute(`${trial.task}#${trial.repeat}`)}" ` +
    `classname="${xmlAttribute(trial.task)}" time="${seconds(trial.duration_ms)}">`,
    ...outcome,
    `      <system-out>${xmlText(trialSummary(trial, category))}</system-out>`,
    "    </testcase>",
  ];
}

/** A trial with no verdict: an error, so that a CI report of a cut-short run never reads green. */
function unfinishedCase(trial: UnfinishedTrial, status: string, resume: string): string[] {
  const message = `no verdict: the trial did not finish (run ${status}); ${resume}`;
  return [
    `    <testcase name="${xmlAttribute(`${trial.task}#${trial.repeat}`)}" ` +
    `classname="${xmlAttribute(trial.task)}" time="0.000">`,
    `      <error type="unfinished" message="${xmlAttribute(message)}">` +
    `${xmlText(`session ${trial.session}`)}</error>`,
    "    </testcase>",
  ];
}

/** What failed: the reason, the checks and requirements that did not hold, the scripts' output. */
function failureDetail(trial: TrialRecord): string {
  const failed = (label: string, checks: ReportedCheck[]) =>
    checks.filter((check) => !check.passed).map((check) =>
      `${label} ${check.kind} failed: ${check.detail}`
    );
  const output = (label: string, script: ReportedScript | null) =>
    script === null || script.output === ""
      ? []
      : [`${label} ${script.script} ${scriptEnd(script)}; its output ends:`, script.output];
  return [
    trial.reason,
    ...failed("check", trial.checks),
    ...failed("requirement", trial.requirements),
    ...output("success script", trial.success),
    // A canary must fail: its output matters only when it passed.
    ...(trial.canary?.exit_code === 0 && !trial.canary.timed_out
      ? output("canary script", trial.canary)
      : []),
  ].join("\n");
}

/** The trial in a few lines: verdict, session, how the agent stopped, what it used, grading. */
function trialSummary(trial: TrialRecord, category: string | undefined): string {
  const checkLine = (label: string) => (check: ReportedCheck) =>
    `${label} ${check.kind}: ${check.passed ? "held" : "failed"} (${check.detail})`;
  const scriptLine = (label: string, script: ReportedScript | null) =>
    script === null ? [] : [`${label} ${script.script} ${scriptEnd(script)}`];
  return [
    `task ${trial.task}${category === undefined ? "" : ` (${category})`}, repeat ${trial.repeat}`,
    `verdict ${trial.verdict}, bucket ${trial.bucket}: ${trial.reason}`,
    `session ${trial.session} ('verdict show ${trial.session}' prints its trajectory)`,
    `agent stopped: ${trial.stop_reason ?? "never ran"}; ${trial.steps} steps, ` +
    `${trial.tool_calls} tool calls (${trial.denied_calls} denied), ` +
    `${trial.compactions} compactions`,
    `tokens ${trial.tokens.input} input, ${trial.tokens.output} output; ` +
    `cost ${dollars(trial.cost_usd)}`,
    `changed paths ${trial.changed_paths}; duration ${seconds(trial.duration_ms)} s`,
    ...trial.checks.map(checkLine("check")),
    ...trial.requirements.map(checkLine("requirement")),
    ...scriptLine("success script", trial.success),
    ...scriptLine("canary script", trial.canary),
    ...(trial.reward === undefined ? [] : [`reward ${trial.reward}`]),
  ].join("\n");
}

function scriptEnd(script: ReportedScript): string {
  return script.timed_out ? "timed out" : `exited ${script.exit_code}`;
}

function seconds(ms: number): string {
  return (ms / 1000).toFixed(3);
}

function isStringRecord(value: unknown): value is Record<string, string> {
  return typeof value === "object" && value !== null &&
    Object.values(value).every((entry) => typeof entry === "string");
}
