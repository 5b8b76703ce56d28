/**
 * `verdict show SESSION`: one trajectory.
 *
 * @module
 */
import { ExitCode } from "../../core/errors.ts";
import { readTrajectory } from "../../report/trajectory.ts";
import { trajectoryText } from "../../report/trajectory_text.ts";
import { type Command, HOME_OPTION, JSON_OPTION } from "../command.ts";
import { findSession, openExistingStore, resolveHome } from "../state.ts";

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
      const trajectory = readTrajectory(store, findSession(store, positionals[0]));
      io.out(values.json ? JSON.stringify(trajectory, null, 2) + "\n" : trajectoryText(trajectory));
      return Promise.resolve(ExitCode.yes);
    } finally {
      store.close();
    }
  },
};
