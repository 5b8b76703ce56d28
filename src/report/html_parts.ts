/**
 * The pieces Verdict's HTML pages share: the style, a DOM builder that only ever writes text
 * (never markup) from recorded strings, and the script that draws one trajectory (messages, tool
 * calls, policy decisions, the agent's command, the diff, what grading saw). `report.html`,
 * `compare --html` and `verdict view` are built from them.
 *
 * @module
 */

/**
 * JSON for a `<script type="application/json">` element: `<` and the two JavaScript line
 * separators escaped, so no recorded string can close the element.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { embeddedJson } from "./html_parts.ts";
 * assert.equal(embeddedJson({ task: "</script>" }), '{"task":"\\u003c/script>"}');
 * ```
 */
export function embeddedJson(data: unknown): string {
  return JSON.stringify(data).replace(/</g, "\\u003c").replace(/\u2028/g, "\\u2028").replace(
    /\u2029/g,
    "\\u2029",
  );
}

/**
 * Text for HTML: `&`, `<`, `>` and `"` escaped.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { escapeHtml } from "./html_parts.ts";
 * assert.equal(escapeHtml('<b a="1">&'), "&lt;b a=&quot;1&quot;&gt;&amp;");
 * ```
 */
export function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"]/g,
    (char) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[char]!,
  );
}

/**
 * The pages' style sheet.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { PAGE_STYLE } from "./html_parts.ts";
 * assert(PAGE_STYLE.includes(".pass"));
 * ```
 */
export const PAGE_STYLE: string = `
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

/**
 * Script that defines `el(tag, attrs, ...children)` (children become text nodes, never markup),
 * `pct(x)` and `verdictSpan(verdict)`; the page's own script follows it in the same function.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { DOM_SCRIPT } from "./html_parts.ts";
 * assert(DOM_SCRIPT.includes("createTextNode"));
 * ```
 */
export const DOM_SCRIPT: string = `const el = (tag, attrs = {}, ...children) => {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "class") node.className = value; else node.setAttribute(key, value);
  }
  for (const child of children.flat()) node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  return node;
};
const pct = (x) => x === null || x === undefined ? "-" : (x * 100).toFixed(1) + "%";
const verdictSpan = (verdict) => el("span", { class: verdict === "pass" ? "pass" : "fail" }, verdict ?? "-");`;

/**
 * Script that defines `trajectoryView(t)` (one trajectory as a DOM node) and `gradingView(g)`;
 * it needs {@linkcode DOM_SCRIPT} before it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { TRAJECTORY_SCRIPT } from "./html_parts.ts";
 * assert(TRAJECTORY_SCRIPT.includes("const trajectoryView"));
 * ```
 */
export const TRAJECTORY_SCRIPT: string = `const trajectoryView = (t) => {
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
};`;
