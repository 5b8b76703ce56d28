import { DOM_SCRIPT, TRAJECTORY_SCRIPT } from "../report/html_parts.ts";

// The trials of one or more runs: filters (task, agent, model, verdict, bucket) and a sort by any
// column, both kept in the URL's hash; the rows are redrawn when new data arrives, the controls
// keep their state.
const TRIALS_SCREEN = `const trialRows = (views) => views.flatMap((view) => {
  const r = view.results;
  const base = { run: r.run.id, agent: r.run.agent ?? "?", model: r.run.model ?? "-" };
  const waiting = r.run.status === "running" ? "running" : "unfinished";
  return [
    ...r.trials.map((t) => ({ ...base, session: t.session, task: t.task, repeat: t.repeat, verdict: t.verdict, bucket: t.bucket, reason: t.reason, cost: t.cost_usd, duration: t.duration_ms, steps: t.steps })),
    ...(r.unfinished ?? []).map((t) => ({ ...base, session: t.session, task: t.task, repeat: t.repeat, verdict: waiting, bucket: "-", reason: "no verdict yet", cost: null, duration: null, steps: null })),
  ];
});
const COLUMNS = [["task", "task"], ["agent", "agent"], ["model", "model"], ["verdict", "verdict"], ["bucket", "bucket"], ["reason", "reason"], ["cost", "cost"], ["duration", "duration"], ["steps", "steps"]];
const FILTERS = ["agent", "model", "verdict", "bucket"];
const compare = (key) => (a, b) => {
  const [x, y] = [a[key], b[key]];
  if (x === y) return 0;
  if (x === null || x === undefined) return 1;
  if (y === null || y === undefined) return -1;
  return typeof x === "number" && typeof y === "number" ? x - y : String(x).localeCompare(String(y));
};
const trialsScreen = (root) => {
  const params = route().params;
  const title = el("h1", {});
  const meta = el("p", { class: "meta" });
  const cards = el("div", { class: "cards" });
  const task = el("input", { id: "filter-task", type: "search", placeholder: "task contains", value: params.get("task") ?? "" });
  const selects = Object.fromEntries(FILTERS.map((name) => [name, el("select", { id: "filter-" + name })]));
  const head = el("tr", {});
  const body = el("tbody");
  const count = el("p", { id: "shown", class: "meta" });
  root.append(el("p", { class: "meta" }, link("#/", "runs")), title, meta, cards,
    el("div", { class: "filters" }, task, ...FILTERS.map((name) => el("label", {}, name + " ", selects[name]))),
    count, el("table", { id: "trials" }, el("thead", {}, head), body));
  let rows = [];
  const drawRows = () => {
    const p = route().params;
    const sort = p.get("sort") ?? "task";
    const descending = p.get("dir") === "desc";
    const needle = task.value.trim().toLowerCase();
    const kept = rows.filter((row) => (!needle || row.task.toLowerCase().includes(needle)) && FILTERS.every((name) => !selects[name].value || String(row[name]) === selects[name].value));
    kept.sort((a, b) => compare(sort)(a, b) || compare("task")(a, b) || a.repeat - b.repeat || compare("run")(a, b));
    if (descending) kept.reverse();
    head.textContent = "";
    for (const [key, label] of COLUMNS) {
      const th = el("th", { "data-sort": key, class: "sortable" }, label + (key === sort ? (descending ? " ▼" : " ▲") : ""));
      th.addEventListener("click", () => { const q = route().params; q.set("dir", q.get("sort") === key && q.get("dir") !== "desc" ? "desc" : "asc"); q.set("sort", key); setParams(q); drawRows(); });
      head.append(th);
    }
    body.textContent = "";
    for (const row of kept) {
      body.append(el("tr", { "data-session": row.session, "data-verdict": row.verdict },
        el("td", {}, link("#/trial/" + encodeURIComponent(row.session), row.task + "#" + row.repeat)),
        el("td", {}, row.agent), el("td", {}, row.model), el("td", {}, verdictSpan(row.verdict)), el("td", {}, row.bucket),
        el("td", { class: "reason" }, row.reason), el("td", {}, money(row.cost)), el("td", {}, seconds(row.duration)), el("td", {}, row.steps ?? "-")));
    }
    count.textContent = kept.length + " of " + rows.length + " trials shown";
  };
  const onFilter = () => {
    const q = route().params;
    for (const [name, input] of [["task", task], ...Object.entries(selects)]) { if (input.value) q.set(name, input.value); else q.delete(name); }
    setParams(q);
    drawRows();
  };
  task.addEventListener("input", onFilter);
  for (const select of Object.values(selects)) select.addEventListener("change", onFilter);
  return (views) => {
    rows = trialRows(views);
    const one = views.length === 1 ? views[0] : null;
    title.textContent = one ? "Run " + one.results.run.id : "Trials of " + views.length + " runs";
    meta.textContent = views.map((v) => v.results.run.id + ": " + v.label + " · " + v.results.run.status).join("; ");
    const s = views.reduce((a, v) => ({ finished: a.finished + v.results.summary.finished, passed: a.passed + v.results.summary.passed, failed: a.failed + v.results.summary.failed, planned: v.planned === null || a.planned === null ? null : a.planned + v.planned }), { finished: 0, passed: 0, failed: 0, planned: 0 });
    cards.textContent = "";
    cards.append(
      el("div", { class: "card" }, el("b", { id: "summary-finished" }, s.finished + (s.planned !== null ? " of " + s.planned : "")), el("span", {}, "trials with a verdict")),
      el("div", { class: "card" }, el("b", { id: "summary-passed", class: "pass" }, s.passed), el("span", {}, "passed")),
      el("div", { class: "card" }, el("b", { id: "summary-failed", class: "fail" }, s.failed), el("span", {}, "failed")),
      el("div", { class: "card" }, el("b", { id: "summary-rate" }, pct(s.finished ? s.passed / s.finished : null)), el("span", {}, "pass rate")),
      el("div", { class: "card" }, el("b", { id: "summary-cost" }, views.map((v) => v.cost).join(" + ")), el("span", {}, "cost")));
    const p = route().params;
    for (const name of FILTERS) {
      const select = selects[name];
      const wanted = select.value || p.get(name) || "";
      const values = [...new Set(rows.map((row) => String(row[name])))].sort();
      if (wanted && !values.includes(wanted)) values.push(wanted);
      select.textContent = "";
      select.append(el("option", { value: "" }, "all"), ...values.map((value) => el("option", { value }, value)));
      select.value = wanted;
    }
    drawRows();
  };
};`;

// Runs against tasks: each cell the task's passes over its trials in that run, and pass@k for k
// the number of trials (the chance one of k tries passes, estimated without bias).
const MATRIX_SCREEN = `const matrixScreen = (root) => (views) => {
  root.textContent = "";
  const tasks = [...new Set(views.flatMap((v) => v.stats.tasks.map((t) => t.task)))].sort();
  const header = el("tr", {}, el("th", {}, "task"), views.map((v) => el("th", { "data-run": v.results.run.id }, link("#/run/" + encodeURIComponent(v.results.run.id), v.label), el("div", { class: "meta" }, v.results.run.id))));
  const cell = (v, task) => {
    const t = v.stats.tasks.find((x) => x.task === task);
    if (!t) return el("td", { "data-task": task, "data-run": v.results.run.id }, "-");
    const k = String(t.n);
    const atK = t.pass_at_k[k];
    return el("td", { "data-task": task, "data-run": v.results.run.id, class: t.passes === t.n ? "pass" : t.passes === 0 ? "fail" : "" },
      t.passes + "/" + t.n, el("span", { class: "meta" }, " pass@" + k + " " + pct(atK) + (t.n > 1 ? " · pass^" + k + " " + pct(t.pass_hat_k[k]) : "")));
  };
  const overall = el("tr", { class: "overall" }, el("th", {}, "all tasks"), views.map((v) => el("td", { "data-run": v.results.run.id }, pct(v.stats.overall.pass_rate) + " of " + v.stats.overall.n)));
  root.append(el("p", { class: "meta" }, link("#/", "runs"), " · ", link("#/run/" + views.map((v) => encodeURIComponent(v.results.run.id)).join(","), "their trials")),
    el("h1", {}, "Runs against tasks"),
    el("table", { id: "matrix" }, el("thead", {}, header), el("tbody", {}, tasks.map((task) => el("tr", { "data-task": task }, el("th", {}, task), views.map((v) => cell(v, task)))), overall)));
};`;

// The viewer's page script. It draws four views from JSON (the runs; the trials of one or more runs
// with filters and sort; a matrix of runs against tasks; one trial) routed by the URL's hash.
// Served, it fetches `api/...` and polls the view on screen, so a run in progress fills in
// without a reload; in a static bundle the same paths are read from the embedded JSON.
// Every recorded string reaches the page through `el`, as text.
export const VIEWER_SCRIPT = `(() => {
"use strict";
const app = document.getElementById("app");
const bundleNode = document.getElementById("bundle");
const bundle = bundleNode ? JSON.parse(bundleNode.textContent) : null;
${DOM_SCRIPT}
${TRAJECTORY_SCRIPT}
const load = async (path) => {
  if (bundle) {
    if (!(path in bundle)) throw new Error("this bundle holds one run; " + path + " is not in it");
    return bundle[path];
  }
  const response = await fetch(path, { cache: "no-store", credentials: "same-origin" });
  const text = await response.text();
  if (!response.ok) throw new Error(path + ": " + response.status + " " + text);
  return JSON.parse(text);
};
const money = (x) => x === null || x === undefined ? "-" : "$" + String(x);
const seconds = (ms) => ms === null || ms === undefined ? "-" : (ms / 1000).toFixed(1) + " s";
const link = (hash, ...children) => el("a", { href: hash }, ...children);
const route = () => {
  const [path, query] = (location.hash.slice(1) || "/").split("?");
  const parts = path.split("/").filter(Boolean).map(decodeURIComponent);
  return { view: parts[0] ?? "runs", arg: parts[1] ?? "", params: new URLSearchParams(query ?? "") };
};
const setParams = (params) => {
  const { view, arg } = route();
  const query = params.toString();
  history.replaceState(null, "", "#/" + view + "/" + encodeURIComponent(arg) + (query ? "?" + query : ""));
};
let current = null;
const show = async () => {
  const { view, arg } = route();
  const screen = { runs: runsScreen, run: trialsScreen, matrix: matrixScreen, trial: trialScreen }[view];
  const paths = !screen ? [] : view === "runs" ? ["api/runs"] : view === "trial" ? ["api/trials/" + encodeURIComponent(arg)] : arg.split(",").map((id) => "api/runs/" + encodeURIComponent(id));
  const state = { view, arg, paths, screen, last: null, draw: null, idle: false, ticks: 0 };
  current = state;
  app.textContent = "";
  if (!screen) { app.append(el("p", { id: "error", class: "fail" }, "no such view: " + location.hash)); return; }
  await refresh(state);
};
const refresh = async (state) => {
  let data;
  try {
    data = await Promise.all(state.paths.map(load));
  } catch (error) {
    if (current !== state) return;
    app.textContent = "";
    app.append(el("p", { id: "error", class: "fail" }, String(error.message ?? error)));
    state.last = null;
    state.draw = null;
    return;
  }
  const text = JSON.stringify(data);
  if (current !== state) return;
  state.idle = state.view === "trial" ? data[0].trajectory.verdict !== null : state.view !== "runs" && data.every((v) => v.results.run.status !== "running");
  if (text === state.last) return;
  state.last = text;
  if (state.draw === null) state.draw = state.screen(app);
  state.draw(data);
};
const runsScreen = (root) => {
  const selected = new Set();
  const actions = el("p", { class: "meta" });
  const body = el("tbody");
  root.append(el("h1", {}, "Verdict runs"), actions,
    el("table", { id: "runs" }, el("thead", {}, el("tr", {}, ["", "run", "created (UTC)", "status", "agent, model", "tasks", "passed", "rate"].map((h) => el("th", {}, h)))), body));
  const drawActions = () => {
    const ids = [...selected].join(",");
    actions.textContent = "";
    actions.append(ids ? link("#/matrix/" + ids, "matrix of the selected runs") : "select runs to see them side by side", ids ? " · " : "", ids ? link("#/run/" + ids, "their trials") : "");
  };
  drawActions();
  return ([runs]) => {
    body.textContent = "";
    for (const run of runs) {
      const box = el("input", { type: "checkbox", "data-run": run.id });
      box.checked = selected.has(run.id);
      box.addEventListener("change", () => { if (box.checked) selected.add(run.id); else selected.delete(run.id); drawActions(); });
      body.append(el("tr", { "data-run": run.id }, el("td", {}, box), el("td", {}, link("#/run/" + encodeURIComponent(run.id), run.id)), el("td", {}, run.created_at.slice(0, 16).replace("T", " ")), el("td", {}, run.status), el("td", {}, run.label + (run.shard ? " (shard " + run.shard + ")" : "")), el("td", {}, run.tasks), el("td", {}, run.passed + "/" + run.finished + (run.finished < run.trials ? " of " + run.trials : "")), el("td", {}, pct(run.pass_rate))));
    }
    if (runs.length === 0) body.append(el("tr", {}, el("td", { colspan: "8" }, "no runs yet: run verdict eval")));
  };
};
${TRIALS_SCREEN}
${MATRIX_SCREEN}
const trialScreen = (root) => (([view]) => {
  const t = view.trajectory;
  root.textContent = "";
  document.title = t.task + "#" + t.repeat + " · Verdict";
  root.append(el("p", { class: "meta" }, link("#/", "runs"), " / ", link("#/run/" + encodeURIComponent(view.run), view.run + " (" + view.label + ")")),
    el("h1", {}, t.task + "#" + t.repeat),
    el("p", { id: "verdict" }, t.verdict ? [verdictSpan(t.verdict.verdict), " " + t.verdict.bucket + ": " + t.verdict.reason] : "no verdict yet"),
    el("p", { class: "meta", id: "session" }, "session " + t.session + (t.engine ? " · engine " + t.engine : "") +
      (t.moves || []).map((m) => " · moved from " + m.from + " (" + m.reason + ")").join("")),
    trajectoryView(t));
});
addEventListener("hashchange", show);
// Once a second while what is on screen can change (a running run, a trial with no verdict, the
// runs list); every ten seconds otherwise (a finished run changes only if it is resumed).
if (!bundle) setInterval(() => {
  if (!current || !current.screen) return;
  current.ticks += 1;
  if (!current.idle || current.ticks % 10 === 0) refresh(current);
}, 1000);
if (bundle && !location.hash) location.hash = bundle.start;
show();
})();`;
