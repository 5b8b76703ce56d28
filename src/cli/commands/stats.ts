/**
 * `verdict stats RUN...`: per-task and overall statistics.
 *
 * @module
 */
import { runLabel } from "../../report/run_label.ts";
import { ExitCode } from "../../core/errors.ts";
import { runPromptCache } from "../../eval/run/run_prompt_cache.ts";
import { statsColumnsText, statsText } from "../../report/stats_text.ts";
import { runStats } from "../../stats/run_stats.ts";
import { type Command, HOME_OPTION, JSON_OPTION } from "../command.ts";
import { findRun, openExistingStore, resolveHome } from "../state.ts";

/** The `stats` command. */
export const statsCommand: Command = {
  name: "stats",
  summary:
    "per-task and overall statistics: pass rates with Wilson intervals, pass@k, pass^k, costs",
  args: "RUN...",
  options: { ...JSON_OPTION, ...HOME_OPTION },
  positionals: { min: 1, max: Infinity },
  details:
    "With several runs, the table has one column per run. --json gives `overall` and `tasks[]`\n" +
    "(fractions, not percent; `overall.pending` counts trials with no verdict yet;\n" +
    "`overall.prompt_cache` the provider's prefix cache: hit rate, tokens and dollars saved); with\n" +
    "several runs, `runs[]` of those.",
  run({ io, values, positionals }) {
    const store = openExistingStore(resolveHome(values, io));
    try {
      const runs = positionals.map((id) => {
        const run = findRun(store, id);
        return {
          run: run.id,
          label: runLabel(run.config),
          stats: runStats(store.runs.trialSummaries(run.id), runPromptCache(store, run)),
          progress: { status: run.status, pending: store.runs.unfinishedCount(run.id) },
        };
      });
      if (values.json) {
        const shaped = runs.map(({ run, stats, progress }) => ({
          run,
          // `n` counts finished trials; `pending` those with no verdict yet (a live or cut-off run).
          overall: { ...stats.overall, pending: progress.pending },
          tasks: stats.tasks,
        }));
        io.out(JSON.stringify(shaped.length === 1 ? shaped[0] : { runs: shaped }, null, 2) + "\n");
      } else if (runs.length === 1) {
        const [{ run, stats, progress, label }] = runs;
        io.out(statsText(run, stats, progress, label));
      } else {
        for (const { run, stats, progress, label } of runs) {
          io.out(statsText(run, stats, progress, label).split("\n\n")[0] + "\n");
        }
        io.out("\n" + statsColumnsText(runs));
      }
      return Promise.resolve(ExitCode.yes);
    } finally {
      store.close();
    }
  },
};
