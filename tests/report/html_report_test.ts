import assert from "node:assert/strict";
import { formatUsd, usd } from "../../src/core/money.ts";
import { join } from "node:path";
import type { Results } from "../../src/report/results.ts";
import { requireDocker } from "../_docker.ts";
import { ARTIFACTS, runVerdict, scratchDir } from "../_verdict.ts";

const CHROMIUM = "/usr/bin/chromium";

async function launch() {
  // playwright-core probes /proc/sys for WSL when it loads unless told it is under test; Deno
  // gates /proc/sys behind --allow-all, which no permission set of ours grants.
  Deno.env.set("__IS_WSL_TEST__", "1");
  const { chromium } = await import("playwright-core");
  try {
    await Deno.stat(CHROMIUM);
  } catch {
    throw new Error(
      `this test needs Debian's chromium at ${CHROMIUM}: apt-get install -y chromium`,
    );
  }
  return await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}

Deno.test("report.html opens from disk with no network and no console errors, and shows the run", async () => {
  await requireDocker();
  await using home = await scratchDir("html");
  const evaluated = await runVerdict([
    "eval",
    "tasks/fix-slugify",
    "tasks/shell-count-errors",
    "tasks/policy-no-installs",
    "--model",
    "scripted:faults=0.5",
    "--seed",
    "3",
    "--repeat",
    "2",
    "--json",
    "--home",
    home.path,
  ]);
  assert.equal(evaluated.code, 0, evaluated.stderr);
  const { run } = JSON.parse(evaluated.stdout) as Results;
  const runDir = join(home.path, "runs", run.id);
  const results = JSON.parse(await Deno.readTextFile(join(runDir, "results.json"))) as Results;
  const html = join(runDir, "report.html");

  const browser = await launch();
  try {
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    const problems: string[] = [];
    const requests: string[] = [];
    page.on("console", (message) => message.type() === "error" && problems.push(message.text()));
    page.on("pageerror", (error) => problems.push(error.message));
    await page.route("**/*", (route) => {
      const url = route.request().url();
      if (url.startsWith("file:")) return route.continue();
      requests.push(url);
      return route.abort();
    });
    await page.goto(`file://${html}`);
    assert.deepEqual(problems, [], "no console errors");
    assert.deepEqual(requests, [], "no network requests");

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
    assert.equal(await page.locator("#tasks tr[data-task]").count(), 3);
    assert.equal(
      await page.locator("#tasks svg.interval").count(),
      3,
      "each task's interval is drawn",
    );

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
  } finally {
    await browser.close();
  }
});

Deno.test("compare --html shows each flip's two trajectories side by side", async () => {
  await requireDocker();
  await using home = await scratchDir("html");
  const base = await runVerdict([
    "eval",
    "tasks/fix-slugify",
    "tasks/shell-count-errors",
    "--json",
    "--home",
    home.path,
  ]);
  const faulty = await runVerdict([
    "eval",
    "tasks/fix-slugify",
    "tasks/shell-count-errors",
    "--model",
    "scripted:faults=1",
    "--json",
    "--home",
    home.path,
  ]);
  const [a, b] = [base, faulty].map((result) => (JSON.parse(result.stdout) as Results).run.id);
  const page = join(home.path, "compare.html");
  const compared = await runVerdict(["compare", a, b, "--html", page, "--home", home.path]);
  assert.equal(compared.code, 0, compared.stderr);
  assert.match(compared.stdout, /b \(pass→fail\) 2, c \(fail→pass\) 0/);
  const browser = await launch();
  try {
    const tab = await browser.newPage();
    const problems: string[] = [];
    tab.on("pageerror", (error) => problems.push(error.message));
    await tab.goto(`file://${page}`);
    assert.equal(await tab.locator(".side.flip").count(), 2);
    assert.equal(await tab.locator(".side.flip").first().locator(":scope > div").count(), 2);
    assert.match((await tab.textContent("#comparison")) ?? "", /b 2, c 0/);
    assert.deepEqual(problems, []);
  } finally {
    await browser.close();
  }
});
