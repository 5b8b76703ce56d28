import assert from "node:assert/strict";
import { formatUsd, usd } from "../../src/core/money.ts";
import { join } from "node:path";
import { MemorySandbox } from "../../src/engine/memory_sandbox.ts";
import { runEval } from "../../src/eval/run/run_eval.ts";
import { renderHtml } from "../../src/report/html.ts";
import type { Results } from "../../src/report/results.ts";
import { readTrajectory } from "../../src/report/trajectory.ts";
import { runStats } from "../../src/stats/run_stats.ts";
import { openStore } from "../../src/store/store.ts";
import { launchChromium, type Page, watchPage } from "../_browser.ts";
import { requireDocker } from "../_docker.ts";
import { ARTIFACTS, runVerdict, scratchDir } from "../_verdict.ts";
import { runVerdictInProcess } from "../cli/_in_process.ts";

const TASKS = ["tasks/shell-count-errors", "tasks/shell-rotate-logs"];

/** Opens a run's report.html with every request off the disk refused; returns what went wrong. */
async function openReport(
  page: Page,
  runDir: string,
): Promise<{ problems: string[]; requests: string[] }> {
  const { problems, refused } = await watchPage(page, (url) => url.startsWith("file:"));
  await page.goto(`file://${join(runDir, "report.html")}`);
  return { problems, requests: refused };
}

/** The summary and the tasks table a report shows are the run's results. */
async function assertSummary(page: Page, results: Results): Promise<void> {
  const text = async (selector: string) => (await page.textContent(selector))?.trim();
  assert.equal(await text("#summary-trials"), String(results.summary.finished));
  assert.equal(await text("#summary-passed"), String(results.summary.passed));
  assert.equal(await text("#summary-failed"), String(results.summary.failed));
  assert.equal(
    await text("#summary-rate"),
    `${((results.summary.pass_rate ?? 0) * 100).toFixed(1)}%`,
  );
  const costs = results.trials.map((trial) => trial.cost_usd);
  assert.equal(
    await text("#summary-cost"),
    costs.includes(null)
      ? "unknown"
      : `$${formatUsd(costs.reduce((sum: bigint, cost) => sum + usd(cost!), 0n))}`,
  );
  const tokens = results.trials.reduce((sum, t) => sum + t.tokens.input + t.tokens.output, 0);
  assert.equal(await text("#summary-tokens"), String(tokens));
  assert.equal(await page.locator("#tasks tr[data-task]").count(), TASKS.length);
  // One trial per task: pass@1 and pass^1 are each task's pass rate.
  for (const trial of results.trials) {
    const row = page.locator(`#tasks tr[data-task="${trial.task}"]`);
    const rate = trial.verdict === "pass" ? "100.0%" : "0.0%";
    assert.equal(await row.locator(".pass-at-k").textContent(), `k=1 ${rate}`);
    assert.equal(await row.locator(".pass-hat-k").textContent(), `k=1 ${rate}`);
  }
  assert.equal(
    await page.locator("#tasks svg.interval").count(),
    TASKS.length,
    "each task's interval is drawn",
  );
}

// Two runs of two busybox tasks: the scripted model passes both, and with every trial faulty it
// fails both; each run's report, and the comparison of the two, open in one browser.
Deno.test("report.html opens from disk with no network and no console errors, and shows the run; compare --html shows each flip's two trajectories side by side", async () => {
  await requireDocker();
  await using home = await scratchDir("html");
  // One after the other: both are recorded in one state folder, for compare.
  const evals = [];
  for (const model of ["scripted", "scripted:faults=1"]) {
    evals.push(
      await runVerdict(["eval", ...TASKS, "--model", model, "--json", "--home", home.path]),
    );
  }
  for (const result of evals) assert.equal(result.code, 0, result.stderr);
  const [base, faulty] = evals.map((result) => JSON.parse(result.stdout) as Results);
  const runDir = (results: Results) => join(home.path, "runs", results.run.id);
  const written = async (results: Results) =>
    JSON.parse(await Deno.readTextFile(join(runDir(results), "results.json"))) as Results;
  assert.deepEqual(base.trials.map((trial) => trial.verdict), ["pass", "pass"]);
  assert.deepEqual(faulty.trials.map((trial) => trial.verdict), ["fail", "fail"]);
  const comparePage = join(home.path, "compare.html");
  const compared = await runVerdictInProcess([
    "compare",
    base.run.id,
    faulty.run.id,
    "--html",
    comparePage,
    "--home",
    home.path,
  ]);
  assert.equal(compared.code, 0, compared.stderr);
  assert.match(compared.stdout, /b \(pass→fail\) 2, c \(fail→pass\) 0/);

  const browser = await launchChromium();
  try {
    // The failed run's report.
    const failedPage = await browser.newPage();
    const failedLoad = await openReport(failedPage, runDir(faulty));
    assert.deepEqual(failedLoad.problems, [], "no console errors");
    assert.deepEqual(failedLoad.requests, [], "no network requests");
    await assertSummary(failedPage, await written(faulty));
    // A failed trial opened shows what grading saw: the success script's run and its output.
    const failed = (await written(faulty)).trials[0];
    await failedPage.click(`details[data-session="${failed.session}"] > summary`);
    const grading = failedPage.locator(`details[data-session="${failed.session}"] .grading`);
    await grading.waitFor({ state: "visible", timeout: 10_000 });
    assert.match(
      (await grading.locator(".script").first().textContent()) ?? "",
      new RegExp(
        `^success script ${failed.success!.script}: exit code ${failed.success!.exit_code}`,
      ),
    );
    assert.ok(failed.success!.output.trim() !== "", "the failed trial's test printed something");
    assert.equal(await grading.locator(".grader-output").textContent(), failed.success!.output);

    // The passed run's report, and one of its trials opened.
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    const { problems, requests } = await openReport(page, runDir(base));
    assert.deepEqual(problems, [], "no console errors");
    assert.deepEqual(requests, [], "no network requests");
    const results = await written(base);
    await assertSummary(page, results);
    const trial = results.trials[0];
    await page.click(`details[data-session="${trial.session}"] > summary`);
    const calls = page.locator(`details[data-session="${trial.session}"] .tool-call`);
    assert.ok(trial.tool_calls > 0);
    // The trajectory is drawn by the asynchronous `toggle` event; count only once it is there.
    await calls.first().waitFor({ state: "visible", timeout: 10_000 });
    assert.equal(await calls.count(), trial.tool_calls, "opening a trial shows every tool call");
    assert.equal(await calls.first().getAttribute("data-tool"), "list_dir");
    assert.ok(await calls.first().isVisible());
    await Deno.mkdir(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, "report-screenshot.png"), fullPage: true });
    assert.deepEqual(problems, [], "no console errors after opening a trial");

    // The comparison.
    const tab = await browser.newPage();
    const tabProblems: string[] = [];
    tab.on("pageerror", (error) => tabProblems.push(error.message));
    await tab.goto(`file://${comparePage}`);
    assert.equal(await tab.locator(".side.flip").count(), 2);
    assert.equal(await tab.locator(".side.flip").first().locator(":scope > div").count(), 2);
    assert.match((await tab.textContent("#comparison")) ?? "", /b 2, c 0/);
    assert.deepEqual(tabProblems, []);
  } finally {
    await browser.close();
  }
});

Deno.test("report.html shows an installed agent's command, how it ended and what it printed, as text", async () => {
  await using dir = await scratchDir("html-agent-run");
  const sandbox = new MemorySandbox({
    exec: ({ script }) => ({ exitCode: script.includes("tests/test.sh") ? 1 : 0 }),
  });
  const { run, results } = await runEval(
    { paths: ["tasks/fix-slugify"], agent: "nop", home: dir.path },
    { sandbox },
  );
  const store = openStore(join(dir.path, "verdict.db"));
  const trial = results.trials[0];
  const trajectory = {
    ...readTrajectory(store, { id: trial.session, task: trial.task, repeat: trial.repeat }),
    agentRun: {
      command: "python3 /verdict/agent/agent.py",
      exit_code: 3,
      timed_out: false,
      stdout: "step 1\n<script>document.title = 'owned'</script>\n",
      stderr: "Traceback: boom\n",
    },
  };
  store.close();
  const runDir = join(dir.path, "runs", run.id);
  await Deno.writeTextFile(
    join(runDir, "report.html"),
    renderHtml(results, runStats(results.trials), [trajectory]),
  );
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    const { problems, requests } = await openReport(page, runDir);
    await page.click(`details[data-session="${trial.session}"] > summary`);
    const agentRun = page.locator(`details[data-session="${trial.session}"] .agent-run`);
    await agentRun.waitFor({ state: "visible", timeout: 10_000 });
    assert.equal(await agentRun.textContent(), "python3 /verdict/agent/agent.py exit code 3");
    assert.equal(await page.textContent(".agent-stdout"), trajectory.agentRun.stdout);
    assert.equal(await page.textContent(".agent-stderr"), "Traceback: boom\n");
    assert.notEqual(await page.title(), "owned", "recorded output is text, never markup");
    assert.deepEqual([problems, requests], [[], []]);
  } finally {
    await browser.close();
  }
});
