/**
 * `report.html`: one self-contained file (no network, no external script, style or font) with the
 * run's summary, per-task pass rates with their Wilson intervals drawn, flaky tasks, failure
 * buckets, and each trial's trajectory (messages, tool calls, policy decisions, and the diff of the
 * end state against the initial workspace), opened on demand. `compare --html` shows the flips of
 * two runs side by side.
 *
 * @module
 */
import type { Comparison } from "../stats/compare.ts";
import type { GateOutcome } from "../stats/gate.ts";
import type { RunStats } from "../stats/run_stats.ts";
import type { Results } from "./results.ts";
import { dollars } from "./stats_text.ts";
import type { Trajectory } from "./trajectory.ts";

/**
 * Renders a run's report.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { renderHtml } from "./html.ts";
 * import { runStats } from "../stats/run_stats.ts";
 * const results = {
 *   schema: "verdict.results/1" as const,
 *   run: { id: "abc", status: "finished", created_at: "2026-01-01T00:00:00.000Z" },
 *   summary: {
 *     trials: 0, finished: 0, passed: 0, failed: 0, pass_rate: null,
 *     buckets: { pass: 0, agent_failure: 0, evaluator_error: 0, infrastructure_error: 0 },
 *   },
 *   trials: [],
 * };
 * assert(renderHtml(results, runStats([]), []).startsWith("<!doctype html>"));
 * ```
 */
export function renderHtml(results: Results, stats: RunStats, trajectories: Trajectory[]): string {
  // Money is rounded here, in decimal, not by the browser's binary toFixed.
  const cost = dollars(stats.overall.cost_usd.total);
  return page(`Verdict run ${results.run.id}`, { kind: "run", results, stats, cost, trajectories });
}

/** Renders a comparison: the numbers, the gate, and every flip's two trajectories side by side. */
export function renderComparisonHtml(
  comparison: Comparison,
  gate: GateOutcome | undefined,
  flips: { base: Trajectory; candidate: Trajectory }[],
): string {
  return page(`Verdict: ${comparison.base} vs ${comparison.candidate}`, {
    kind: "compare",
    comparison,
    gate: gate ?? null,
    flips,
  });
}

function page(title: string, data: unknown): string {
  const json = JSON.stringify(data).replace(/</g, "\\u003c").replace(/\u2028/g, "\\u2028").replace(
    /\u2029/g,
    "\\u2029",
  );
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<main id="app"><noscript>This report needs JavaScript to draw; the data is in results.json.</noscript></main>
<script type="application/json" id="data">${json}</script>
<script>${SCRIPT}</script>
</body>
</html>
`;
}

function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"]/g,
    (char) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[char]!,
  );
}

const STYLE = `
:root { --pass: #1a7f37; --fail: #cf222e; --muted: #57606a; --line: #d0d7de; font-family: system-ui, sans-serif; }
body { margin: 0; background: #f6f8fa; color: #1f2328; }
main { max-width: 1100px; margin: 0 auto; padding: 24px; }
h1 { font-size: 22px; margin: 0 0 4px; } h2 { font-size: 17px; margin: 28px 0 8px; }
.meta { color: var(--muted); font-size: 13px; }
.cards { display: flex; gap: 12px; flex-wrap: wrap; margin: 16px 0; }
.card { background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 12px 16px; min-width: 120px; }
.card b { display: block; font-size: 24px; } .card span { color: var(--muted); font-size: 12px; }
table { border-collapse: collapse; width: 100%; background: #fff; border: 1px solid var(--line); font-size: 13px; }
th, td { text-align: left; padding: 6px 10px; border-bottom: 1px solid var(--line); vertical-align: top; }
.pass { color: var(--pass); font-weight: 600; } .fail { color: var(--fail); font-weight: 600; }
details.trial { background: #fff; border: 1px solid var(--line); border-radius: 6px; margin: 6px 0; }
details.trial > summary { cursor: pointer; padding: 8px 12px; }
.body { padding: 0 12px 12px; } pre { background: #f6f8fa; border: 1px solid var(--line); padding: 8px; overflow-x: auto; font-size: 12px; white-space: pre-wrap; }
.tool-call { border-left: 3px solid var(--line); margin: 8px 0; padding-left: 8px; }
.tool-call.denied { border-color: var(--fail); } .tag { font-size: 11px; padding: 1px 6px; border-radius: 10px; background: #eaeef2; margin-left: 6px; }
.side { display: grid; grid-template-columns: 1fr 1fr; gap: 12px; } .diff-add { color: var(--pass); } .diff-del { color: var(--fail); }
svg.interval { display: block; }
`;

// The page's script: builds the DOM from the embedded JSON. No network, no globals leaked.
const SCRIPT = `(() => {
"use strict";
const data = JSON.parse(document.getElementById("data").textContent);
const app = document.getElementById("app");
app.textContent = "";
const el = (tag, attrs = {}, ...children) => {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "class") node.className = value; else node.setAttribute(key, value);
  }
  for (const child of children.flat()) node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  return node;
};
const pct = (x) => x === null || x === undefined ? "-" : (x * 100).toFixed(1) + "%";
const svgNS = "http://www.w3.org/2000/svg";
const interval = (rate, low, high) => {
  const svg = document.createElementNS(svgNS, "svg");
  svg.setAttribute("class", "interval"); svg.setAttribute("width", "220"); svg.setAttribute("height", "16");
  const rect = (x, w, fill) => { const r = document.createElementNS(svgNS, "rect"); r.setAttribute("x", x); r.setAttribute("y", "6"); r.setAttribute("width", w); r.setAttribute("height", "4"); r.setAttribute("fill", fill); return r; };
  svg.append(rect(0, 200, "#eaeef2"), rect(low * 200, Math.max(1, (high - low) * 200), "#8c959f"));
  if (rate !== null) { const dot = document.createElementNS(svgNS, "circle"); dot.setAttribute("cx", rate * 200); dot.setAttribute("cy", "8"); dot.setAttribute("r", "4"); dot.setAttribute("fill", "#0969da"); svg.append(dot); }
  return svg;
};
const verdictSpan = (verdict) => el("span", { class: verdict === "pass" ? "pass" : "fail" }, verdict ?? "-");
const trajectoryView = (t) => {
  const body = el("div", { class: "body" });
  if (t.instruction !== null) body.append(el("h4", {}, "Task"), el("pre", {}, t.instruction));
  for (const step of t.steps) {
    const section = el("div", { class: "step", "data-step": step.step });
    if (step.compaction) section.append(el("p", { class: "meta" }, "context compacted: " + step.compaction.removedMessages + " messages removed (" + step.compaction.strategy + ")"));
    section.append(el("p", {}, el("b", {}, "Step " + step.step + ": "), step.content || "(no text)", el("span", { class: "meta" }, "  " + (step.usage.input + step.usage.cachedInput + (step.usage.cacheWriteInput ?? 0)) + " in, " + step.usage.output + " out")));
    for (const call of step.calls) {
      const denied = call.decision && !call.decision.allowed;
      const box = el("div", { class: "tool-call" + (denied ? " denied" : ""), "data-tool": call.tool },
        el("code", {}, call.tool + " " + call.arguments),
        call.decision ? el("span", { class: "tag" }, denied ? "denied: " + call.decision.reason : "allowed") : "",
        call.result && call.result.cached ? el("span", { class: "tag" }, "cached") : "",
        call.result && call.result.outcome_unknown ? el("span", { class: "tag" }, "outcome unknown") : "",
        call.by_agent ? el("span", { class: "tag" }, "run by the agent") : "",
        call.result && call.result.is_error ? el("span", { class: "tag" }, "error" + (call.result.exit_code ? ", exit code " + call.result.exit_code : "")) : "");
      if (call.command !== undefined) box.append(el("pre", { class: "command" }, "$ " + call.command));
      if (call.result) box.append(el("pre", { class: "result" }, call.result.content));
      section.append(box);
    }
    body.append(section);
  }
  if (t.agentRun) {
    const run = t.agentRun;
    body.append(el("h4", {}, "Agent's command"), el("p", { class: "agent-run" }, el("code", {}, run.command), " " + (run.timed_out ? "killed at the task's deadline" : "exit code " + run.exit_code)));
    if (run.stdout.trim() !== "") body.append(el("p", { class: "meta" }, "stdout"), el("pre", { class: "agent-stdout" }, run.stdout));
    if (run.stderr.trim() !== "") body.append(el("p", { class: "meta" }, "stderr"), el("pre", { class: "agent-stderr" }, run.stderr));
  }
  if (t.stop) body.append(el("p", { class: "meta" }, "stopped: " + t.stop.reason + (t.stop.detail ? " (" + t.stop.detail + ")" : "") + (t.resumed ? "; resumed after an interruption" : "")));
  if (t.changes.length > 0) {
    body.append(el("h4", {}, "Changes to the workspace"));
    for (const change of t.changes) {
      body.append(el("p", {}, el("code", {}, change.change + " " + change.path), change.aspects ? el("span", { class: "meta" }, " (" + change.aspects.join(", ") + ")") : ""));
      if (change.diff) {
        const pre = el("pre", { class: "diff" });
        for (const line of change.diff.split("\\n")) pre.append(el("span", { class: line.startsWith("+") ? "diff-add" : line.startsWith("-") ? "diff-del" : "" }, line + "\\n"));
        body.append(pre);
      }
    }
  }
  if (t.grading) body.append(gradingView(t.grading));
  return body;
};
const gradingView = (g) => {
  const box = el("div", { class: "grading" }, el("h4", {}, "What grading saw"));
  for (const [label, checks] of [["check", g.checks], ["requirement", g.requirements]]) {
    for (const check of checks) box.append(el("p", { class: "check", "data-held": String(check.passed) }, el("span", { class: check.passed ? "pass" : "fail" }, check.passed ? "held" : "failed"), " " + label + " ", el("code", {}, check.kind), ": " + check.detail));
  }
  const script = (label, run, withOutput) => {
    if (!run) return;
    const tests = run.tests ? "; tests: " + run.tests.ran + " ran, " + run.tests.passed + " passed, " + run.tests.failed + " failed" : "";
    box.append(el("p", { class: "script" }, label + " ", el("code", {}, run.script), ": " + (run.timed_out ? "killed at its deadline" : "exit code " + run.exit_code) + tests));
    if (withOutput && run.output.trim() !== "") box.append(el("pre", { class: "grader-output" }, run.output));
  };
  script("success script", g.success, true);
  const canaryPassed = g.canary && g.canary.exit_code === 0 && !g.canary.timed_out;
  script(canaryPassed ? "canary (it must fail, and passed)" : "canary", g.canary, canaryPassed);
  if (g.reward !== undefined) box.append(el("p", {}, "reward " + g.reward));
  return box;
};
const trialDetails = (trial, trajectory) => {
  const details = el("details", { class: "trial", "data-session": trial.session },
    el("summary", {}, verdictSpan(trial.verdict), "  " + trial.task + "#" + trial.repeat + "  ", el("span", { class: "meta" }, trial.bucket + ": " + trial.reason + " · " + trial.steps + " steps · " + trial.tool_calls + " tool calls")));
  let drawn = false;
  details.addEventListener("toggle", () => { if (details.open && !drawn && trajectory) { details.append(trajectoryView(trajectory)); drawn = true; } });
  return details;
};
if (data.kind === "run") {
  const { results, stats, cost, trajectories } = data;
  const s = results.summary;
  document.title = "Verdict run " + results.run.id;
  app.append(
    el("h1", {}, "Verdict run " + results.run.id),
    el("p", { class: "meta" }, [results.run.agent, results.run.model, "seed " + results.run.seed, results.run.repeat + " repeats", "status " + results.run.status].filter(Boolean).join(" · ")),
    el("div", { class: "cards" },
      el("div", { class: "card" }, el("b", { id: "summary-trials" }, s.finished), el("span", {}, "trials finished")),
      el("div", { class: "card" }, el("b", { id: "summary-passed", class: "pass" }, s.passed), el("span", {}, "passed")),
      el("div", { class: "card" }, el("b", { id: "summary-failed", class: "fail" }, s.failed), el("span", {}, "failed")),
      el("div", { class: "card" }, el("b", { id: "summary-rate" }, pct(s.pass_rate)), el("span", {}, "pass rate [" + pct(stats.overall.ci_low) + ", " + pct(stats.overall.ci_high) + "]")),
      el("div", { class: "card" }, el("b", { id: "summary-cost" }, cost), el("span", {}, "cost"))),
    el("h2", {}, "Tasks"),
    el("table", { id: "tasks" }, el("tr", {}, el("th", {}, "task"), el("th", {}, "passed"), el("th", {}, "pass rate"), el("th", {}, "95% interval"), el("th", {}, "")),
      stats.tasks.map((t) => el("tr", { "data-task": t.task }, el("td", {}, t.task + (t.flaky ? " (flaky)" : "")), el("td", {}, t.passes + "/" + t.n), el("td", {}, pct(t.pass_rate)), el("td", {}, pct(t.ci_low) + " – " + pct(t.ci_high)), el("td", {}, interval(t.pass_rate, t.ci_low, t.ci_high))))),
    el("h2", {}, "Flaky tasks"),
    el("p", { id: "flaky" }, stats.overall.flaky.length ? stats.overall.flaky.join(", ") : "none"),
    el("h2", {}, "Failures"),
    el("table", { id: "buckets" }, el("tr", {}, el("th", {}, "bucket"), el("th", {}, "trials"), el("th", {}, "reasons")),
      Object.entries(stats.overall.buckets).map(([bucket, b]) => el("tr", {}, el("td", {}, bucket), el("td", {}, b.count), el("td", {}, Object.entries(b.reasons).map(([r, n]) => n + "× " + r).join("; "))))),
    el("h2", {}, "Trials"),
    el("div", { id: "trials" }, results.trials.map((trial) => trialDetails(trial, trajectories.find((t) => t.session === trial.session)))));
} else {
  const { comparison: c, gate, flips } = data;
  app.append(el("h1", {}, c.base + " → " + c.candidate));
  if (!c.comparable) app.append(el("p", { id: "incomparable", class: "fail" }, "incomparable: " + c.differences.join("; ")));
  else app.append(el("p", { id: "comparison" }, c.pairs + " paired trials · pass rate " + pct(c.base_pass_rate) + " → " + pct(c.candidate_pass_rate) + " · b " + c.b + ", c " + c.c + " · exact McNemar p = " + c.p_value.toPrecision(4)));
  if (gate) app.append(el("p", { id: "gate", class: gate.passed ? "pass" : "fail" }, gate.passed ? "gate passed" : "gate failed: " + gate.reasons.join("; ")));
  app.append(el("h2", {}, "Flips"));
  for (const flip of flips) {
    app.append(el("h3", {}, flip.base.task + "#" + flip.base.repeat + ": " + (flip.base.verdict ? flip.base.verdict.verdict : "-") + " → " + (flip.candidate.verdict ? flip.candidate.verdict.verdict : "-")),
      el("div", { class: "side flip" }, [flip.base, flip.candidate].map((t) => el("div", {}, el("p", { class: "meta" }, t.session + ": " + (t.verdict ? t.verdict.reason : "")), trajectoryView(t)))));
  }
}
})();`;
