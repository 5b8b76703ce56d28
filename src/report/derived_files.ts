/**
 * A run folder's `results.json` and `report.md` are derived from the store: `verify` rebuilds them
 * from the record and names a file that says something else (edited, or left stale by a crash
 * between the run's end and the writing of its files). `report.html` is not compared: it may live
 * elsewhere (`--html`), and it carries the same data as `results.json`.
 *
 * @module
 */
import { join } from "node:path";
import { firstDifference } from "../core/first_difference.ts";
import { runStats } from "../stats/run_stats.ts";
import type { RunRecord } from "../store/run_table.ts";
import type { Store } from "../store/store.ts";
import { renderMarkdown } from "./markdown.ts";
import { buildResults } from "./results.ts";

/** A derived file that does not match the record. */
export interface DerivedFileProblem {
  /** The file. */
  file: string;
  /** What differs, and how to rebuild it. */
  what: string;
}

/**
 * Compares a run folder's `results.json` (by content) and `report.md` (by text) with what the
 * store rebuilds. A run that ended writes both, so a missing one is a problem too (a process
 * killed between the record's end and its files leaves that); ask only of a run that ended.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openStore } from "../store/store.ts";
 * import { derivedFileProblems } from "./derived_files.ts";
 * import { writeRunReports } from "./run_reports.ts";
 * const store = openStore(":memory:");
 * store.runs.create({ id: "r", config: {}, createdAt: 0 });
 * const dir = await Deno.makeTempDir();
 * await writeRunReports(store, store.runs.get("r")!, dir);
 * assert((await derivedFileProblems(store, store.runs.get("r")!, dir)).length === 0);
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function derivedFileProblems(
  store: Store,
  run: RunRecord,
  runDir: string,
): Promise<DerivedFileProblem[]> {
  const results = buildResults(store, run);
  const rebuild = `'verdict report ${run.id}' rebuilds it from the record`;
  const problems: DerivedFileProblem[] = [];

  const resultsFile = join(runDir, "results.json");
  const resultsText = await readIfPresent(resultsFile);
  if (resultsText === undefined) {
    problems.push({ file: resultsFile, what: `it is missing; ${rebuild}` });
  } else {
    let written: unknown;
    try {
      written = JSON.parse(resultsText);
    } catch {
      problems.push({ file: resultsFile, what: `it is not valid JSON; ${rebuild}` });
    }
    const difference = written === undefined
      ? undefined
      : firstDifference(JSON.parse(JSON.stringify(results)), written);
    if (difference !== undefined) {
      problems.push({
        file: resultsFile,
        what: `it does not match the record at ${difference.path || "the top level"}: the ` +
          `record says ${difference.expected}, the file says ${difference.actual}; ${rebuild}`,
      });
    }
  }

  const reportFile = join(runDir, "report.md");
  const reportText = await readIfPresent(reportFile);
  if (reportText === undefined) {
    problems.push({ file: reportFile, what: `it is missing; ${rebuild}` });
  } else {
    const stats = runStats(results.trials);
    const line = firstDifferentLine(renderMarkdown(results, stats), reportText);
    // A report written before it showed what grading saw is today's without that section.
    const older = renderMarkdown(results, stats, { grading: false }) === reportText;
    if (line !== undefined && !older) {
      problems.push({
        file: reportFile,
        what: `it does not match the record from line ${line} on; ${rebuild}`,
      });
    }
  }
  return problems;
}

async function readIfPresent(path: string): Promise<string | undefined> {
  try {
    return await Deno.readTextFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  }
}

function firstDifferentLine(expected: string, actual: string): number | undefined {
  if (expected === actual) return undefined;
  const [left, right] = [expected.split("\n"), actual.split("\n")];
  let index = 0;
  while (index < left.length && left[index] === right[index]) index++;
  return index + 1;
}
