import assert from "node:assert/strict";
import { join } from "node:path";
import { MemorySandbox } from "../../src/engine/memory_sandbox.ts";
import { runEval } from "../../src/eval/run/run_eval.ts";
import { openStore } from "../../src/store/store.ts";
import { startViewer } from "../../src/view/viewer_server.ts";
import { launchChromium, watchPage } from "../_browser.ts";
import { scratchDir } from "../_verdict.ts";

// The eval runs in this process against the in-memory sandbox, one trial at a time; the second
// trial's grading waits until the page has shown the first, so the page is watched mid-run.
Deno.test("verdict view follows a run in progress: a trial that finishes appears without a reload", async () => {
  await using dir = await scratchDir("view-live");
  let release = () => {};
  const held = new Promise<void>((resolve) => release = resolve);
  let graded = 0;
  const sandbox = new MemorySandbox({
    exec: async ({ script }) => {
      if (!script.includes("tests/test.sh")) return { exitCode: 0 };
      graded += 1;
      if (graded === 2) await held;
      return { exitCode: 1 };
    },
  });
  const evaluation = runEval(
    { paths: ["tasks/fix-slugify"], agent: "nop", repeat: 2, concurrency: 1, home: dir.path },
    { sandbox },
  );
  const db = join(dir.path, "verdict.db");
  while (graded < 2) await new Promise((resolve) => setTimeout(resolve, 20));

  const controller = new AbortController();
  const store = openStore(db, { readOnly: true });
  const viewer = startViewer({ store, token: "live-token", signal: controller.signal });
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    const { problems, refused } = await watchPage(page, (url) => url.startsWith(viewer.origin));
    await page.goto(`${viewer.url}#/run/latest`);
    await page.locator('#trials tr[data-verdict="running"]').waitFor({ timeout: 10_000 });
    await page.evaluate(() => (globalThis as Record<string, unknown>).sameDocument = true);
    const verdicts = () =>
      page.locator("#trials tbody tr").evaluateAll((rows) =>
        rows.map((row) => row.getAttribute("data-verdict"))
      );
    assert.deepEqual(await verdicts(), ["fail", "running"]);
    assert.equal(await page.textContent("#summary-finished"), "1 of 2");

    release();
    const { run } = await evaluation;
    await page.locator('#trials tr[data-verdict="running"]').waitFor({
      state: "detached",
      timeout: 10_000,
    });
    assert.deepEqual(await verdicts(), ["fail", "fail"]);
    assert.equal(await page.textContent("#summary-finished"), "2 of 2");
    assert.equal(await page.textContent("h1"), `Run ${run.id}`);
    assert.equal(
      await page.evaluate(() => (globalThis as Record<string, unknown>).sameDocument),
      true,
      "the page was not reloaded",
    );
    assert.deepEqual([problems, refused], [[], []]);
  } finally {
    release();
    await browser.close();
    controller.abort();
    await viewer.finished;
    store.close();
  }
});
