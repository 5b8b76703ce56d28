import assert from "node:assert/strict";
import { join } from "node:path";
import { readClaudeCodeTranscript } from "../../src/agent/claude_code_transcript.ts";
import { databasePath } from "../../src/cli/state.ts";
import { renderHtml } from "../../src/report/html.ts";
import { readTrajectory } from "../../src/report/trajectory.ts";
import { runStats } from "../../src/stats/run_stats.ts";
import { EVENT, event } from "../../src/store/event_catalogue.ts";
import { openStore } from "../../src/store/store.ts";
import type { TrialRecord } from "../../src/store/trial_record.ts";
import { scratchDir } from "../_verdict.ts";
import { runVerdictInProcess } from "../cli/_in_process.ts";

const CHROMIUM = "/usr/bin/chromium";

/** A Claude Code session recorded with its transcript only: one `Bash` call that failed. */
const transcript = readClaudeCodeTranscript(
  [
    { type: "system", subtype: "init" },
    { type: "assistant", message: { content: [{ type: "text", text: "Running the tests." }] } },
    {
      type: "assistant",
      message: {
        content: [{
          type: "tool_use",
          id: "toolu_9",
          name: "Bash",
          input: { command: "pytest -q" },
        }],
      },
    },
    {
      type: "user",
      message: {
        content: [{
          type: "tool_result",
          tool_use_id: "toolu_9",
          content: "E   AssertionError: slug mismatch",
          is_error: true,
        }],
      },
    },
    { type: "result", subtype: "success", is_error: false, duration_ms: 1500 },
  ].map((line) => JSON.stringify(line)).join("\n"),
);

Deno.test("verdict show prints an installed agent's command and its output from the transcript", async () => {
  await using home = await scratchDir("transcript");
  const store = openStore(databasePath(home.path));
  try {
    store.runs.create({ id: "run1", config: {}, createdAt: 0 });
    store.runs.createSession({ id: "sess1", run: "run1", task: "fix-slugify", repeat: 0 });
    store.events.append("sess1", [
      event(EVENT.agentTranscript, { agent: "claude-code", ...transcript }),
    ]);
  } finally {
    store.close();
  }
  const shown = await runVerdictInProcess(["show", "sess1", "--home", home.path]);
  assert.equal(shown.code, 0, shown.stderr);
  const expected = [
    "step 1 (0 in, 0 out): Running the tests.",
    '  → Bash {"command":"pytest -q"}  [run by the agent]',
    "      $ pytest -q",
    "      E   AssertionError: slug mismatch",
    "      (error)",
  ].join("\n");
  assert(shown.stdout.includes(expected), shown.stdout);
});

Deno.test("the HTML report draws an installed agent's command and its output", async () => {
  try {
    await Deno.stat(CHROMIUM);
  } catch {
    throw new Error(
      `this test needs Debian's chromium at ${CHROMIUM}: apt-get install -y chromium`,
    );
  }
  const store = openStore(":memory:");
  let html: string;
  try {
    store.runs.create({ id: "run1", config: {}, createdAt: 0 });
    store.runs.createSession({ id: "sess1", run: "run1", task: "fix-slugify", repeat: 0 });
    store.events.append("sess1", [
      event(EVENT.agentTranscript, { agent: "claude-code", ...transcript }),
    ]);
    const trajectory = readTrajectory(store, store.runs.session("sess1")!);
    const trial: TrialRecord = {
      task: "fix-slugify",
      repeat: 0,
      session: "sess1",
      verdict: "fail",
      bucket: "agent_failure",
      reason: "a check failed",
      stop_reason: "completed",
      steps: 1,
      tool_calls: 1,
      denied_calls: 0,
      compactions: 0,
      tokens: { input: 0, output: 0 },
      cost_usd: null,
      end_state_root: null,
      initial_root: null,
      changed_paths: 0,
      duration_ms: 1500,
      checks: [],
      requirements: [],
      success: null,
      canary: null,
    };
    html = renderHtml(
      {
        schema: "verdict.results/1",
        run: { id: "run1", status: "finished", created_at: "2026-01-01T00:00:00.000Z" },
        summary: {
          trials: 1,
          finished: 1,
          passed: 0,
          failed: 1,
          pass_rate: 0,
          buckets: { pass: 0, agent_failure: 1, evaluator_error: 0, infrastructure_error: 0 },
        },
        trials: [trial],
      },
      runStats([]),
      [trajectory],
    );
  } finally {
    store.close();
  }
  await using dir = await scratchDir("transcript-html");
  const file = join(dir.path, "report.html");
  await Deno.writeTextFile(file, html);

  Deno.env.set("__IS_WSL_TEST__", "1"); // as html_report_test.ts: no /proc/sys probe
  const { chromium } = await import("playwright-core");
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"],
  });
  try {
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on("pageerror", (error) => problems.push(error.message));
    await page.route(
      "**/*",
      (route) => route.request().url().startsWith("file:") ? route.continue() : route.abort(),
    );
    await page.goto(`file://${file}`);
    await page.click(`details[data-session="sess1"] > summary`);
    const call = page.locator(`details[data-session="sess1"] .tool-call`);
    await call.first().waitFor({ state: "visible", timeout: 10_000 });
    assert.equal(await call.count(), 1);
    assert.equal(await call.locator("pre.command").textContent(), "$ pytest -q");
    assert.equal(
      await call.locator("pre.result").textContent(),
      "E   AssertionError: slug mismatch",
    );
    assert.match((await call.textContent()) ?? "", /run by the agent.*error/);
    assert.deepEqual(problems, []);
  } finally {
    await browser.close();
  }
});
