/**
 * `report.html`: one self-contained file (no network, no external script, style or font) with the
 * run's summary (with its cost and tokens), per-task pass rates with their Wilson intervals drawn
 * and pass@k and pass^k for every k up to the task's trials, flaky tasks, failure
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
import {
  DOM_SCRIPT,
  embeddedJson,
  escapeHtml,
  PAGE_STYLE,
  TRAJECTORY_SCRIPT,
} from "./html_parts.ts";
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
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${PAGE_STYLE}</style>
</head>
<body>
<main id="app"><noscript>This report needs JavaScript to draw; the data is in results.json.</noscript></main>
<script type="application/json" id="data">${embeddedJson(data)}</script>
<script>${SCRIPT}</script>
</body>
</html>
`;
}

// The page's script: builds the DOM from the embedded JSON. No network, no globals leaked.
const SCRIPT = `(() => {
"use strict";
const data = JSON.parse(document.getElementById("data").textContent);
const app = document.getElementById("app");
app.textContent = "";
${DOM_SCRIPT}
const svgNS = "http://www.w3.org/2000/svg";
const interval = (rate, low, high) => {
  const svg = document.createElementNS(svgNS, "svg");
  svg.setAttribute("class", "interval"); svg.setAttribute("width", "220"); svg.setAttribute("height", "16");
  const rect = (x, w, fill) => { const r = document.createElementNS(svgNS, "rect"); r.setAttribute("x", x); r.setAttribute("y", "6"); r.setAttribute("width", w); r.setAttribute("height", "4"); r.setAttribute("fill", fill); return r; };
  svg.append(rect(0, 200, "#eaeef2"), rect(low * 200, Math.max(1, (high - low) * 200), "#8c959f"));
  if (rate !== null) { const dot = document.createElementNS(svgNS, "circle"); dot.setAttribute("cx", rate * 200); dot.setAttribute("cy", "8"); dot.setAttribute("r", "4"); dot.setAttribute("fill", "#0969da"); svg.append(dot); }
  return svg;
};
${TRAJECTORY_SCRIPT}
// pass@k and pass^k for each k up to the task's trials: "k=1 50.0% · k=2 83.3%".
const atK = (byK) => Object.entries(byK).map(([k, value]) => "k=" + k + " " + pct(value)).join(" · ");
const trialDetails = (trial, trajectory) => {
  const details = el("details", { class: "trial", "data-session": trial.session },
    el("summary", {}, verdictSpan(trial.verdict), "  " + trial.task + "#" + trial.repeat + "  ", el("span", { class: "meta" }, trial.bucket + ": " + trial.reason + " · " + trial.steps + " steps · " + trial.tool_calls + " tool calls · " + (trial.tokens.input + trial.tokens.output) + " tokens · " + (trial.duration_ms / 1000).toFixed(1) + " s")));
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
      el("div", { class: "card" }, el("b", { id: "summary-cost" }, cost), el("span", {}, "cost")),
      el("div", { class: "card" }, el("b", { id: "summary-tokens" }, stats.overall.tokens.total), el("span", {}, "tokens (input and output)"))),
    el("h2", {}, "Tasks"),
    el("p", { id: "overall-k", class: "meta" }, "over all tasks: pass@k " + (atK(stats.overall.pass_at_k) || "-") + "; pass^k " + (atK(stats.overall.pass_hat_k) || "-")),
    el("table", { id: "tasks" }, el("tr", {}, el("th", {}, "task"), el("th", {}, "passed"), el("th", {}, "pass rate"), el("th", {}, "95% interval"), el("th", {}, ""), el("th", {}, "pass@k"), el("th", {}, "pass^k")),
      stats.tasks.map((t) => el("tr", { "data-task": t.task }, el("td", {}, t.task + (t.flaky ? " (flaky)" : "")), el("td", {}, t.passes + "/" + t.n), el("td", {}, pct(t.pass_rate)), el("td", {}, pct(t.ci_low) + " – " + pct(t.ci_high)), el("td", {}, interval(t.pass_rate, t.ci_low, t.ci_high)), el("td", { class: "pass-at-k" }, atK(t.pass_at_k)), el("td", { class: "pass-hat-k" }, atK(t.pass_hat_k))))),
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
