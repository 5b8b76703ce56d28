import assert from "node:assert/strict";
import { join } from "node:path";
import { openStore } from "../../src/store/store.ts";
import { startViewer } from "../../src/view/viewer_server.ts";
import type { Results } from "../../src/report/results.ts";
import { launchChromium, type Page, watchPage } from "../_browser.ts";
import { requireDocker } from "../_docker.ts";
import { syntheticRecord } from "../_synthetic_runs.ts";
import { copyTree, runVerdict, scratchDir } from "../_verdict.ts";
import { runVerdictInProcess } from "../cli/_in_process.ts";

const HOSTILE_TASK = "<script>document.title='owned'</script>";
const HOSTILE_REASON = "<img src=x onerror=\"document.title='owned'\">";

/** Two tasks, one of them given a wrong solution: the oracle passes one and fails the other. */
async function suiteWithOneWrongSolution(dir: string): Promise<string[]> {
  const paths = [join(dir, "shell-count-errors"), join(dir, "fix-slugify")];
  await copyTree("tasks/shell-count-errors", paths[0]);
  await copyTree("tasks/fix-slugify", paths[1]);
  const slug = "textkit/slug.py";
  const original = await Deno.readTextFile(join(paths[1], "workspace", slug));
  const lines = original.split("\n");
  lines.splice(2, 1, "# a guess that fixes nothing", "GUESS = 1");
  await Deno.writeTextFile(join(paths[1], "solution", "files", slug), lines.join("\n"));
  return paths;
}

/** A second run in the same store, written by hand: every string in it is hostile markup. */
function addHostileRun(db: string): void {
  const store = openStore(db);
  try {
    store.runs.create({
      id: "hostile",
      config: { agent: HOSTILE_REASON, model: HOSTILE_TASK, tasks: [HOSTILE_TASK], repeat: 1 },
      createdAt: 1,
    });
    store.runs.setStatus("hostile", "finished");
    store.runs.createSession({ id: "hostile-s", run: "hostile", task: HOSTILE_TASK, repeat: 0 });
    const record = {
      ...syntheticRecord("hostile-s", HOSTILE_TASK, 0, "fail"),
      reason: HOSTILE_REASON,
    };
    store.runs.finishSession("hostile-s", record);
  } finally {
    store.close();
  }
}

async function rowsOf(page: Page): Promise<{ session: string; verdict: string }[]> {
  return await page.locator("#trials tbody tr").evaluateAll((rows) =>
    rows.map((row) => ({
      session: row.getAttribute("data-session") ?? "",
      verdict: row.getAttribute("data-verdict") ?? "",
    }))
  );
}

// One real run (Docker, SQLite) with a passing and a failing trial, and a hand-written run whose
// task, agent, model and reason are markup; the viewer serves both to a real Chromium.
Deno.test("verdict view: a failing trial shows the grader's output, the diff and the reason; filtering to failures shows only failures; recorded markup stays text; the static bundle opens from disk", async () => {
  await requireDocker();
  await using dir = await scratchDir("view");
  const home = join(dir.path, "home");
  const tasks = await suiteWithOneWrongSolution(join(dir.path, "tasks"));
  const evaluated = await runVerdict([
    "eval",
    ...tasks,
    "--agent",
    "oracle",
    "--repeat",
    "2",
    "--json",
    "--home",
    home,
  ]);
  assert.equal(evaluated.code, 0, evaluated.stderr);
  const results = JSON.parse(evaluated.stdout) as Results;
  const failed = results.trials.filter((trial) => trial.verdict === "fail");
  assert.deepEqual(failed.map((trial) => trial.task), ["fix-slugify", "fix-slugify"]);
  addHostileRun(join(home, "verdict.db"));

  const controller = new AbortController();
  const store = openStore(join(home, "verdict.db"), { readOnly: true });
  const viewer = startViewer({ store, token: "test-token", signal: controller.signal });
  const browser = await launchChromium();
  try {
    const page = await browser.newPage({ viewport: { width: 1300, height: 900 } });
    const { problems, refused } = await watchPage(page, (url) => url.startsWith(viewer.origin));
    await page.goto(`${viewer.url}#/run/${results.run.id}`);
    assert.equal(new URL(page.url()).search, "", "the token leaves the address once traded");
    await page.locator("#trials tbody tr").nth(3).waitFor({ timeout: 10_000 });
    assert.equal((await rowsOf(page)).length, 4);

    await page.selectOption("#filter-verdict", "fail");
    const kept = await rowsOf(page);
    assert.deepEqual(kept.map((row) => row.verdict), ["fail", "fail"]);
    assert.deepEqual(kept.map((row) => row.session).sort(), failed.map((t) => t.session).sort());
    assert.equal(await page.textContent("#shown"), "2 of 4 trials shown");
    await page.reload();
    await page.locator("#trials tbody tr").first().waitFor();
    assert.equal((await rowsOf(page)).length, 2, "the filter is kept in the address");

    const trial = failed[0];
    await page.click(`#trials tr[data-session="${trial.session}"] a`);
    await page.locator(".grader-output").waitFor({ timeout: 10_000 });
    assert.equal(await page.textContent(".grader-output"), trial.success!.output);
    assert.match(
      (await page.textContent("#verdict")) ?? "",
      new RegExp(`agent_failure: ${trial.reason.replace(/[()]/g, "\\$&")}`),
    );
    const diff = (await page.locator("pre.diff").allTextContents()).join("");
    assert.match(diff, /^\+# a guess that fixes nothing$/m);
    assert.match(diff, /^\+GUESS = 1$/m);
    assert.match(diff, /^-/m, "the replaced line is shown removed");

    // The runs, and the matrix of runs against tasks.
    await page.goto(`${viewer.origin}/#/`);
    await page.locator("#runs tbody tr").nth(1).waitFor();
    assert.equal(await page.locator("#runs tbody tr").count(), 2);
    await page.goto(`${viewer.origin}/#/matrix/${results.run.id},hostile`);
    const cell = page.locator(`#matrix td[data-task="fix-slugify"][data-run="${results.run.id}"]`);
    await cell.waitFor();
    assert.match((await cell.textContent()) ?? "", /^0\/2 pass@2 0\.0% · pass\^2 0\.0%$/);
    assert.match(
      (await page.locator(
        `#matrix td[data-task="shell-count-errors"][data-run="${results.run.id}"]`,
      ).textContent()) ?? "",
      /^2\/2 pass@2 100\.0%/,
    );
    const hostileRow = page.locator("#matrix tbody tr").filter({ hasText: HOSTILE_TASK });
    assert.equal(await hostileRow.count(), 1, "the hostile task's name is shown as text");

    // Hostile strings are text: shown as written, never run.
    await page.goto(`${viewer.origin}/#/run/hostile`);
    await page.locator("#trials tbody tr").first().waitFor();
    assert.equal(
      await page.textContent("#trials tbody tr td:first-child"),
      `${HOSTILE_TASK}#0`,
    );
    assert.equal(await page.textContent("#trials td.reason"), HOSTILE_REASON);
    await page.click("#trials tbody tr a");
    await page.locator("#verdict").waitFor();
    assert.equal(await page.textContent("h1"), `${HOSTILE_TASK}#0`);
    assert.notEqual(await page.title(), "owned");
    assert.equal(await page.locator("main script, main img").count(), 0);
    assert.deepEqual([problems, refused], [[], []], "no console errors, no request elsewhere");

    // The static bundle of the run, opened from disk with every request refused.
    const folder = join(dir.path, "bundle");
    const bundled = await runVerdictInProcess([
      "view",
      results.run.id,
      "--bundle",
      folder,
      "--home",
      home,
    ]);
    assert.equal(bundled.code, 0, bundled.stderr);
    const offline = await browser.newPage();
    const watched = await watchPage(offline, (url) => url.startsWith("file:"));
    await offline.goto(`file://${join(folder, "index.html")}`);
    await offline.locator("#trials tbody tr").nth(3).waitFor({ timeout: 10_000 });
    await offline.selectOption("#filter-verdict", "fail");
    assert.equal((await rowsOf(offline)).length, 2);
    await offline.click(`#trials tr[data-session="${trial.session}"] a`);
    await offline.locator(".grader-output").waitFor({ timeout: 10_000 });
    assert.equal(await offline.textContent(".grader-output"), trial.success!.output);
    assert.deepEqual([watched.problems, watched.refused], [[], []]);
  } finally {
    await browser.close();
    controller.abort();
    await viewer.finished;
    store.close();
  }
});
