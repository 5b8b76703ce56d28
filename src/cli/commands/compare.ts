/**
 * `verdict compare BASE CAND [--gate FILE]`: paired comparison, and a gate that fails closed.
 *
 * @module
 */
import { runLabel } from "../../report/run_label.ts";
import { ExitCode } from "../../core/errors.ts";
import { readInputFile } from "../../core/input_file.ts";
import { renderComparisonHtml } from "../../report/html.ts";
import { comparisonText } from "../../report/stats_text.ts";
import { readTrajectory } from "../../report/trajectory.ts";
import { compareRuns } from "../../stats/compare.ts";
import { decideGate, parseGate } from "../../stats/gate.ts";
import { comparedRun } from "../../library/recorded_runs.ts";
import { type Command, HOME_OPTION, JSON_OPTION } from "../command.ts";
import { findRun, openExistingStore, resolveHome } from "../state.ts";

/** The `compare` command. */
export const compareCommand: Command = {
  name: "compare",
  summary:
    "paired comparison of two runs: flips, exact McNemar p-value; with --gate, pass or fail closed",
  args: "BASE CAND",
  options: {
    gate: {
      type: "string",
      valueName: "FILE",
      description: "gate thresholds (YAML: max_drop_pp, alpha, min_cases)",
      path: "read",
    },
    html: {
      type: "string",
      valueName: "FILE",
      description: "also write an HTML page with the flips side by side",
      path: "write",
    },
    ...JSON_OPTION,
    ...HOME_OPTION,
  },
  positionals: { min: 2, max: 2 },
  details:
    "Exits 0, or with --gate 0 when the gate passes and 1 when it fails (incomparable runs and\n" +
    "too few paired cases fail it).",
  async run({ io, values, positionals }) {
    const gate = typeof values.gate === "string"
      ? parseGate(await readInputFile(values.gate, "gate"), values.gate)
      : undefined;
    const store = openExistingStore(resolveHome(values, io));
    try {
      const [baseRun, candidateRun] = positionals.map((id) => findRun(store, id));
      const [base, candidate] = [baseRun, candidateRun].map((run) => comparedRun(store, run));
      const labels = { base: runLabel(baseRun.config), candidate: runLabel(candidateRun.config) };
      const comparison = compareRuns(base, candidate);
      const decision = gate ? decideGate(gate, comparison) : undefined;
      if (typeof values.html === "string") {
        const sessions = (id: string) => store.runs.session(id)!;
        const flips = comparison.comparable
          ? comparison.flips.map((flip) => ({
            base: readTrajectory(store, sessions(flip.base_session)),
            candidate: readTrajectory(store, sessions(flip.candidate_session)),
          }))
          : [];
        await Deno.writeTextFile(values.html, renderComparisonHtml(comparison, decision, flips));
      }
      if (values.json) {
        io.out(
          JSON.stringify({ ...comparison, ...(decision ? { gate: decision } : {}) }, null, 2) +
            "\n",
        );
      } else io.out(comparisonText(comparison, decision, labels));
      return decision && !decision.passed ? ExitCode.no : ExitCode.yes;
    } finally {
      store.close();
    }
  },
};
