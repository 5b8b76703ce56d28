/**
 * `verdict resume RUN`: finish an interrupted run.
 *
 * @module
 */
import { systemClock } from "../../core/system_clock.ts";
import { recordedChoices } from "../../eval/setup/loop_choices.ts";
import { setupLoopAgent } from "../../eval/setup/loop_setup.ts";
import { resumeRun } from "../../eval/run/resume.ts";
import { type Command, HOME_OPTION, JSON_OPTION } from "../command.ts";
import { progressDisplay } from "../progress.ts";
import { PROVIDER_OPTIONS, providerFlags } from "../provider_flags.ts";
import type { ProviderOptions } from "../../model/provider_options.ts";
import { sandboxFromEnv, withInterrupt } from "../runtime.ts";
import { signingKeyFor } from "../signing_key.ts";
import { findRun, openExistingStore, resolveHome } from "../state.ts";
import { exitCodeOf, printSummary } from "./_run_summary.ts";

/** The `resume` command. */
export const resumeCommand: Command = {
  name: "resume",
  summary:
    "finish an interrupted run: keep finished trials, continue the others from their last checkpoint",
  args: "RUN",
  options: {
    model: {
      type: "string",
      valueName: "SPEC",
      description: "must equal the run's model (checked, not changed)",
    },
    policy: {
      type: "string",
      valueName: "FILE",
      description: "must equal the run's policy (checked, not changed)",
      path: "read",
      keywords: ["default"],
    },
    "retry-errors": {
      type: "boolean",
      description:
        "also run again, as new attempts, the trials that ended in an infrastructure error (the " +
        "earlier attempts stay in the record)",
    },
    "max-connections": PROVIDER_OPTIONS["max-connections"],
    ...JSON_OPTION,
    ...HOME_OPTION,
  },
  positionals: { min: 1, max: 1 },
  details:
    "The run continues with the model, policy, tools and tasks it was recorded with; if any of\n" +
    "them changed, resume refuses (exit 2) and says what differs. Exit codes as for eval.",
  async run({ io, values, positionals }) {
    // A transport setting, not part of the run: given again on resume, or not at all.
    const { maxConnections } = providerFlags({ "max-connections": values["max-connections"] });
    const home = resolveHome(values, io);
    const signingKey = await signingKeyFor(io);
    const store = openExistingStore(home);
    try {
      const run = findRun(store, positionals[0]);
      const json = values.json === true;
      const progress = progressDisplay(json ? io.err : io.out, io.isTerminal && !json, systemClock);
      const outcome = await withInterrupt(io, (signal) =>
        resumeRun(run, {
          model: typeof values.model === "string" ? values.model : undefined,
          policy: typeof values.policy === "string" ? values.policy : undefined,
          retryErrors: values["retry-errors"] === true,
        }, {
          store,
          home,
          sandbox: sandboxFromEnv(io),
          clock: systemClock,
          signal,
          progress,
          ...(signingKey ? { signingKey } : {}),
          loopSetup: (config, tasks) =>
            setupLoopAgent({
              ...withMaxConnections(recordedChoices(config), maxConnections),
              env: (name) => io.env(name),
              home,
              clock: systemClock, // no crash knob: a resumed run is not interrupted again on purpose
            }, tasks),
        }));
      progress.done();
      if (json) io.out(JSON.stringify(outcome.results, null, 2) + "\n");
      printSummary(json ? io.err : io.out, outcome);
      return exitCodeOf(outcome);
    } finally {
      store.close();
    }
  },
};

function withMaxConnections<T extends { providerOptions?: ProviderOptions }>(
  choices: T,
  maxConnections: number | undefined,
): T {
  if (maxConnections === undefined) return choices;
  return { ...choices, providerOptions: { ...choices.providerOptions, maxConnections } };
}
