/**
 * `verdict show SESSION`: one trajectory.
 *
 * @module
 */
import { ExitCode, UsageError } from "../../core/errors.ts";
import { nearest } from "../../core/suggest.ts";
import { readTrajectory } from "../../report/trajectory.ts";
import { trajectoryText } from "../../report/trajectory_text.ts";
import { type Command, HOME_OPTION, JSON_OPTION } from "../command.ts";
import { openExistingStore, resolveHome } from "../state.ts";

/** The `show` command. */
export const showCommand: Command = {
  name: "show",
  summary: "print one trajectory: messages, tool calls, policy decisions, verdict, changes",
  args: "SESSION",
  options: { ...JSON_OPTION, ...HOME_OPTION },
  positionals: { min: 1, max: 1 },
  run({ io, values, positionals }) {
    const store = openExistingStore(resolveHome(values, io));
    try {
      const id = positionals[0];
      const sessions = store.runs.list().flatMap((run) => store.runs.sessions(run.id));
      const matches = sessions.filter((session) => session.id === id || session.id.startsWith(id));
      if (matches.length !== 1) {
        const guess = nearest(id, sessions.map((session) => session.id));
        throw new UsageError(
          matches.length > 1
            ? `session prefix '${id}' is ambiguous: ${
              matches.map((session) => session.id).join(", ")
            }`
            : `no session '${id}' in ${store.path}${guess ? `; did you mean ${guess}?` : ""}`,
        );
      }
      const trajectory = readTrajectory(store, matches[0]);
      io.out(values.json ? JSON.stringify(trajectory, null, 2) + "\n" : trajectoryText(trajectory));
      return Promise.resolve(ExitCode.yes);
    } finally {
      store.close();
    }
  },
};
