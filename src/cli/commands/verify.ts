/**
 * `verdict verify RUN`: recompute every hash chain and blob hash of a run.
 *
 * @module
 */
import { ExitCode } from "../../core/errors.ts";
import { eventBlobReferences } from "../../eval/event_references.ts";
import { describeProblem, verifyRun } from "../../store/verify.ts";
import { type Command, HOME_OPTION, JSON_OPTION } from "../command.ts";
import { findRun, openExistingStore, resolveHome } from "../state.ts";

/** The `verify` command. */
export const verifyCommand: Command = {
  name: "verify",
  summary: "recompute every hash chain, root and blob hash of a run; report corruption",
  args: "RUN",
  options: { ...HOME_OPTION, ...JSON_OPTION },
  positionals: { min: 1, max: 1 },
  details: "Exits 0 when the run is intact, 1 naming the first bad event or blob.",
  run({ io, values, positionals }) {
    const store = openExistingStore(resolveHome(values, io));
    try {
      const run = findRun(store, positionals[0]);
      const report = verifyRun(store, run.id, eventBlobReferences(store.blobs));
      if (values.json) {
        io.out(JSON.stringify({ ...report, intact: report.problems.length === 0 }, null, 2) + "\n");
      } else if (report.problems.length === 0) {
        io.out(
          `run ${run.id} intact: ${report.sessions} sessions, ${report.events} events and ` +
            `${report.blobs} blobs verified\n`,
        );
      } else {
        const [first, ...rest] = report.problems;
        io.out(`run ${run.id} is corrupt: ${describeProblem(first)}\n`);
        if (rest.length > 0) io.out(`(${rest.length} more problems follow from it or elsewhere)\n`);
      }
      return Promise.resolve(report.problems.length === 0 ? ExitCode.yes : ExitCode.no);
    } finally {
      store.close();
    }
  },
};
