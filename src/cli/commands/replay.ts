/**
 * `verdict replay SESSION|RUN`: re-drive recorded sessions and report the first divergence.
 *
 * @module
 */
import { ExitCode, UsageError } from "../../core/errors.ts";
import { systemClock } from "../../core/system_clock.ts";
import { recordedChoices } from "../../eval/setup/loop_choices.ts";
import { setupLoopAgent } from "../../eval/setup/loop_setup.ts";
import { replayRun, type SessionReplay } from "../../eval/replay/replay.ts";
import type { RunConfig } from "../../eval/setup/run_identity.ts";
import type { SessionRecord } from "../../store/run_table.ts";
import { type Command, HOME_OPTION, JSON_OPTION } from "../command.ts";
import { sandboxFromEnv } from "../runtime.ts";
import { findRun, findSession, openExistingStore, resolveHome } from "../state.ts";

/** The `replay` command. */
export const replayCommand: Command = {
  name: "replay",
  summary:
    "re-drive recorded sessions from their recorded model responses; report the first divergence",
  args: "SESSION|RUN",
  options: {
    live: {
      type: "boolean",
      description: "run the tools again in a fresh container and compare their results",
    },
    ...JSON_OPTION,
    ...HOME_OPTION,
  },
  positionals: { min: 1, max: 1 },
  details: "No model is called. Without --live, Verdict's own loop starts no container; an\n" +
    "installed agent (cmd:) runs again in a fresh container, answered from its record.\n" +
    "Exits 0 when every\n" +
    "session is identical, 1 naming the session, step, JSON path, expected and actual value,\n" +
    "and 1 when a session is unfinished (resume the run first).",
  async run({ io, values, positionals }) {
    const home = resolveHome(values, io);
    const store = openExistingStore(home);
    try {
      const { run, sessions } = resolveTarget(store, positionals[0]);
      const live = values.live === true;
      const reports = await replayRun(run, sessions, {
        store,
        live,
        // An installed agent's sessions run again in containers; the loop's need none
        // without --live (the engine is not called then).
        sandbox: sandboxFromEnv(io),
        clock: systemClock,
        home,
        loopSetup: (config: RunConfig, task) =>
          setupLoopAgent({
            ...recordedChoices(config),
            env: () => undefined,
            clock: systemClock,
            forReplay: true,
            home,
          }, [task]),
      });
      const count = (status: SessionReplay["status"]) =>
        reports.filter((report) => report.status === status).length;
      // A session with no verdict has not been shown to reproduce: not "identical" (SPEC §6).
      const [diverged, unfinished] = [count("diverged"), count("unfinished")];
      const identical = diverged === 0 && unfinished === 0;
      if (values.json) {
        io.out(
          JSON.stringify({ run: run.id, identical, unfinished, sessions: reports }, null, 2) + "\n",
        );
      } else {
        for (const report of reports) io.out(describe(report));
        const outcome = diverged > 0 ? "diverged" : unfinished > 0 ? "unfinished" : "identical";
        io.out(
          `replay of run ${run.id}: ${outcome} (${count("identical")} identical, ${diverged} ` +
            `diverged, ${count("skipped")} skipped${
              unfinished > 0 ? `, ${unfinished} unfinished` : ""
            })\n`,
        );
        if (unfinished > 0 && diverged === 0) {
          io.out(`the run is unfinished: run 'verdict resume ${run.id}', then replay it\n`);
        }
      }
      return identical ? ExitCode.yes : ExitCode.no;
    } finally {
      store.close();
    }
  },
};

function describe(report: SessionReplay): string {
  const name = `session ${report.session} (${report.task}#${report.repeat})`;
  if (report.status === "identical") return `${name}: identical (${report.steps} steps)\n`;
  if (report.status === "skipped" || report.status === "unfinished") {
    return `${name}: ${report.status}: ${report.note}\n`;
  }
  const lines = [`${name}: diverged at step ${report.step}: ${report.reason}`];
  if (report.difference) {
    lines.push(
      `  at request.${report.difference.path}`,
      `  expected: ${report.difference.expected}`,
      `  actual:   ${report.difference.actual}`,
    );
  }
  return lines.join("\n") + "\n";
}

function resolveTarget(
  store: ReturnType<typeof openExistingStore>,
  id: string,
): { run: ReturnType<typeof findRun>; sessions: SessionRecord[] } {
  // A run when the id names or begins one (a run prefix is what the eval line prints), else a session.
  if (store.runs.list().some((run) => run.id.startsWith(id))) {
    const run = findRun(store, id);
    return { run, sessions: store.runs.sessions(run.id) };
  }
  try {
    const session = findSession(store, id);
    return { run: store.runs.get(session.run)!, sessions: [session] };
  } catch (error) {
    if (error instanceof UsageError && !/ambiguous/.test(error.message)) {
      throw new UsageError(`no session or run '${id}' in ${store.path}`);
    }
    throw error;
  }
}
