/**
 * `verdict runs`: the runs of the state folder, newest first, with what each ran and how it went.
 *
 * @module
 */
import { ExitCode, UsageError } from "../../core/errors.ts";
import { listRuns, type RunListing } from "../../report/run_listing.ts";
import { percent } from "../../report/stats_text.ts";
import type { RunStatus } from "../../store/run_table.ts";
import { type Command, HOME_OPTION, JSON_OPTION } from "../command.ts";
import { count, stringOption } from "../option_values.ts";
import { openExistingStore, resolveHome } from "../state.ts";
import { table } from "../table.ts";

const STATUSES: readonly RunStatus[] = ["running", "finished", "interrupted"];

/** The `runs` command. */
export const runsCommand: Command = {
  name: "runs",
  summary: "list the runs of the state folder, newest first: agent, model, tasks, pass rate",
  args: "",
  options: {
    agent: { type: "string", valueName: "NAME", description: "only runs of this agent" },
    model: { type: "string", valueName: "SPEC", description: "only runs of this model" },
    status: {
      type: "string",
      valueName: "STATUS",
      description: "only runs that are running, finished or interrupted",
    },
    limit: {
      type: "string",
      valueName: "N",
      description: "at most N runs (default 20; 0 for all)",
    },
    ...JSON_OPTION,
    ...HOME_OPTION,
  },
  positionals: { min: 0, max: 0 },
  details: "Wherever a run id is asked for, 'latest' names the newest run.",
  run({ io, values }) {
    const status = stringOption(values, "status");
    if (status !== undefined && !STATUSES.includes(status as RunStatus)) {
      throw new UsageError(
        `--status ${status} is not a run status: give one of ${STATUSES.join(", ")}`,
      );
    }
    const limit = count(values, "limit", 20, 0);
    const store = openExistingStore(resolveHome(values, io));
    try {
      const runs = listRuns(store, {
        agent: stringOption(values, "agent"),
        model: stringOption(values, "model"),
        status: status as RunStatus | undefined,
      });
      const shown = limit === 0 ? runs : runs.slice(0, limit);
      if (values.json) io.out(JSON.stringify(shown, null, 2) + "\n");
      else io.out(runsText(shown, runs.length));
      return Promise.resolve(ExitCode.yes);
    } finally {
      store.close();
    }
  },
};

function runsText(shown: readonly RunListing[], all: number): string {
  if (all === 0) return "no runs match\n";
  const rows = shown.map((run) => [
    run.id,
    run.created_at.slice(0, 16).replace("T", " "),
    run.status,
    run.agent + (run.shard ? ` (shard ${run.shard})` : ""),
    run.model ?? "-",
    String(run.tasks),
    `${run.passed}/${run.finished}` + (run.finished < run.trials ? ` of ${run.trials}` : ""),
    run.pass_rate === null ? "-" : percent(run.pass_rate),
  ]);
  const header = ["run", "created (UTC)", "status", "agent", "model", "tasks", "passed", "rate"];
  const more = all > shown.length ? `(${all - shown.length} older: --limit 0 lists all)\n` : "";
  return table(header, rows) + more;
}
