/**
 * `verdict report RUN [--html FILE] [--junit FILE]`: write a run's report.md, results.json and
 * report.html again, and with `--junit` its trials as JUnit XML.
 *
 * @module
 */
import { join } from "node:path";
import { ExitCode } from "../../core/errors.ts";
import { renderJunit } from "../../report/junit.ts";
import { writeRunReports } from "../../report/run_reports.ts";
import { type Command, HOME_OPTION } from "../command.ts";
import { findRun, openExistingStore, resolveHome } from "../state.ts";

/** The `report` command. */
export const reportCommand: Command = {
  name: "report",
  summary: "write report.md, results.json and a self-contained report.html for a run",
  args: "RUN",
  options: {
    html: {
      type: "string",
      valueName: "FILE",
      description: "write the HTML report here instead of the run folder",
      path: "write",
    },
    junit: {
      type: "string",
      valueName: "FILE",
      description: "also write the trials as JUnit XML here, for a CI server's test report",
      path: "write",
    },
    ...HOME_OPTION,
  },
  positionals: { min: 1, max: 1 },
  async run({ io, values, positionals }) {
    const home = resolveHome(values, io);
    const store = openExistingStore(home);
    try {
      const run = findRun(store, positionals[0]);
      const runDir = join(home, "runs", run.id);
      const html = typeof values.html === "string" ? values.html : join(runDir, "report.html");
      const results = await writeRunReports(store, run, runDir, html);
      io.out(`${join(runDir, "report.md")}\n${join(runDir, "results.json")}\n${html}\n`);
      if (typeof values.junit === "string") {
        await Deno.writeTextFile(values.junit, renderJunit([results]));
        io.out(`${values.junit}\n`);
      }
      return ExitCode.yes;
    } finally {
      store.close();
    }
  },
};
