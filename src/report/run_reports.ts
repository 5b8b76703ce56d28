/**
 * Writing a run's files: `results.json`, `report.md` and `report.html` in `runs/<id>/`.
 *
 * @module
 */
import { join } from "node:path";
import { runStats } from "../stats/run_stats.ts";
import type { RunRecord } from "../store/run_table.ts";
import type { Store } from "../store/store.ts";
import { renderHtml } from "./html.ts";
import { replaceFile } from "./_replace_file.ts";
import { renderMarkdown } from "./markdown.ts";
import { buildResults, type Results } from "./results.ts";
import { readTrajectory } from "./trajectory.ts";

/**
 * Builds a run's results and writes its three files into `runDir`; with `htmlPath`, the HTML goes
 * there instead.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openStore } from "../store/store.ts";
 * import { writeRunReports } from "./run_reports.ts";
 * const store = openStore(":memory:");
 * store.runs.create({ id: "r", config: {}, createdAt: 0 });
 * const dir = await Deno.makeTempDir();
 * const results = await writeRunReports(store, store.runs.get("r")!, dir);
 * assert.equal(results.run.id, "r");
 * assert.deepEqual([...Deno.readDirSync(dir)].map((entry) => entry.name).sort(), [
 *   "report.html",
 *   "report.md",
 *   "results.json",
 * ]);
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function writeRunReports(
  store: Store,
  run: RunRecord,
  runDir: string,
  htmlPath = join(runDir, "report.html"),
): Promise<Results> {
  const results = buildResults(store, run);
  const stats = runStats(results.trials);
  const trajectories = results.trials.map((trial) =>
    readTrajectory(store, { id: trial.session, task: trial.task, repeat: trial.repeat })
  );
  await Deno.mkdir(runDir, { recursive: true });
  // Each file whole or not at all: a run killed while writing them never leaves half of one.
  await replaceFile(join(runDir, "results.json"), JSON.stringify(results, null, 2) + "\n");
  await replaceFile(join(runDir, "report.md"), renderMarkdown(results, stats));
  await replaceFile(htmlPath, renderHtml(results, stats, trajectories));
  return results;
}
