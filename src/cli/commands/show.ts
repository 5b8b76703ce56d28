/**
 * `verdict show SESSION`: one trajectory, as text, as Verdict's JSON, or in Harbor's trajectory
 * format (`--format atif`).
 *
 * @module
 */
import { ExitCode, UsageError } from "../../core/errors.ts";
import { ATIF_SCHEMA_VERSION, atifTrajectory } from "../../report/atif.ts";
import { readTrajectory } from "../../report/trajectory.ts";
import { trajectoryText } from "../../report/trajectory_text.ts";
import { type Command, HOME_OPTION, JSON_OPTION, type OptionValues } from "../command.ts";
import { findSession, openExistingStore, resolveHome } from "../state.ts";

/** The `show` command. */
export const showCommand: Command = {
  name: "show",
  summary: "print one trajectory: messages, tool calls, policy decisions, verdict, changes",
  args: "SESSION",
  options: {
    format: {
      type: "string",
      valueName: "FORMAT",
      description: `text (default), json (as --json), or atif: Harbor's agent trajectory format ` +
        `(${ATIF_SCHEMA_VERSION}), JSON on stdout`,
    },
    ...JSON_OPTION,
    ...HOME_OPTION,
  },
  positionals: { min: 1, max: 1 },
  run({ io, values, positionals }) {
    const format = showFormat(values);
    const store = openExistingStore(resolveHome(values, io));
    try {
      const session = findSession(store, positionals[0]);
      const trajectory = readTrajectory(store, session);
      if (format === "atif") {
        const atif = atifTrajectory(trajectory, store.events.read(session.id));
        io.out(JSON.stringify(atif, null, 2) + "\n");
      } else {
        io.out(
          format === "json"
            ? JSON.stringify(trajectory, null, 2) + "\n"
            : trajectoryText(trajectory),
        );
      }
      return Promise.resolve(ExitCode.yes);
    } finally {
      store.close();
    }
  },
};

const SHOW_FORMATS = ["text", "json", "atif"] as const;

function showFormat(values: OptionValues): (typeof SHOW_FORMATS)[number] {
  const format = values.format ?? (values.json ? "json" : "text");
  const known = SHOW_FORMATS.find((name) => name === format);
  if (known === undefined) {
    throw new UsageError(
      `unknown --format '${format}'; write --format ${SHOW_FORMATS.join(", ")} (verdict show)`,
    );
  }
  if (values.json && known !== "json") {
    throw new UsageError(`--json and --format ${known} disagree: give one (verdict show)`);
  }
  return known;
}
