/**
 * `verdict eval [PATH...]`: run the tasks at each path (default `tasks/`).
 *
 * @module
 */
import { ExitCode, UsageError } from "../../core/errors.ts";
import { systemClock } from "../../core/system_clock.ts";
import { CMD_PREFIX } from "../../agent/cmd_agent.ts";
import { agentKind, AGENTS, takesModel } from "../../eval/setup/agent_registry.ts";
import { setupLoopAgent } from "../../eval/setup/loop_setup.ts";
import { KIT_RECIPES } from "../../kit/kit_catalogue.ts";
import { DEFAULT_REQUEST_TIMEOUT_MS } from "../../model/_http.ts";
import { runEval } from "../../eval/run/run_eval.ts";
import { renderJunit } from "../../report/junit.ts";
import { parseShard } from "../../eval/setup/shard.ts";
import { loadSuite, selectTasks } from "../../task/load_suite.ts";
import { type Command, HOME_OPTION, JSON_OPTION, taskPaths } from "../command.ts";
import { agentFilesOption } from "../agent_files_option.ts";
import { crashProcess } from "../crash_process.ts";
import { count, fraction, MAX_CONCURRENCY, MAX_REPEAT, stringOption } from "../option_values.ts";
import { progressDisplay } from "../progress.ts";
import { PROVIDER_OPTIONS, providerFlags, requireProviderFlagsApply } from "../provider_flags.ts";
import { secondsOption } from "../seconds_option.ts";
import { sandboxFromEnv, withInterrupt } from "../runtime.ts";
import { resolveHome } from "../state.ts";
import { exitCodeOf, printSummary } from "./_run_summary.ts";

/** The `eval` command. */
export const evalCommand: Command = {
  name: "eval",
  summary: "run the tasks at each PATH: a task folder, or a folder of task folders",
  args: "[PATH...]",
  options: {
    agent: {
      type: "string",
      multiple: true,
      valueName: "NAME",
      description:
        `${
          [...AGENTS.map((agent) => agent.name), ...KIT_RECIPES.map((kit) => kit.agent)].join(", ")
        } (default loop; NAME@VERSION for another version of an installed agent), or ` +
        "cmd:COMMAND: a program of your own, run in the trial's container; several make a sweep",
    },
    "agent-files": {
      type: "string",
      valueName: "DIR",
      description:
        "the installed agent's own program, copied (read-only for the agent) to /verdict/agent",
      path: "read",
    },
    model: {
      type: "string",
      multiple: true,
      valueName: "SPEC",
      description:
        "scripted (default), scripted:faults=X, openai:MODEL, anthropic:MODEL or replay:RUN|SESSION " +
        "(a recorded run's responses, fingerprints checked); several make a sweep",
    },
    "base-url": {
      type: "string",
      valueName: "URL",
      description:
        "model endpoint (default $OPENAI_BASE_URL or $ANTHROPIC_BASE_URL, else the provider's)",
    },
    "request-timeout": {
      type: "string",
      valueName: "S",
      description: "seconds one model request may take, response included (default 600); " +
        "retried like a 5xx",
    },
    ...PROVIDER_OPTIONS,
    repeat: { type: "string", valueName: "N", description: "trials per task (default 1)" },
    concurrency: { type: "string", valueName: "N", description: "trials at once (default 4)" },
    seed: {
      type: "string",
      valueName: "N",
      description: "seed of every random choice (default 0)",
    },
    task: { type: "string", multiple: true, valueName: "ID", description: "only this task" },
    shard: {
      type: "string",
      valueName: "K/N",
      description: "run only shard K of N (a task's repeats stay together), under the whole " +
        "run's id; 'verdict merge' joins the shards",
    },
    prices: {
      type: "string",
      valueName: "FILE",
      description: "model prices, USD per million input, output and cached input tokens",
      path: "read",
    },
    "no-cost": {
      type: "boolean",
      description: "run a model without a price; cost is reported as unknown",
    },
    policy: {
      type: "string",
      valueName: "FILE",
      description: "policy for the tasks whose manifest says 'policy: default'",
      path: "read",
      keywords: ["default"],
    },
    "min-pass-rate": {
      type: "string",
      valueName: "X",
      description: "exit 1 when the pass rate is below X (a fraction, such as 0.8)",
    },
    "pass-reward": {
      type: "string",
      valueName: "X",
      description: "Harbor tasks: a trial passes when its reward is at least X (default 1)",
    },
    junit: {
      type: "string",
      valueName: "FILE",
      description: "also write the trials as JUnit XML here, for a CI server's test report",
      path: "write",
    },
    ...JSON_OPTION,
    ...HOME_OPTION,
  },
  positionals: { min: 0, max: Infinity },
  takesTaskPaths: true,
  details: "Exits 0 when every trial got a verdict (pass or fail), 3 when any trial ended in an\n" +
    "infrastructure or evaluator error, 1 when --min-pass-rate is missed, 130 when interrupted (143 on SIGTERM).\n" +
    "API keys come from OPENAI_API_KEY and ANTHROPIC_API_KEY and are never recorded.",
  async run({ io, values, positionals }) {
    const home = resolveHome(values, io);
    const agentNames = (values.agent as string[] | undefined) ?? ["loop"];
    const agentFiles = agentFilesOption(
      values,
      agentNames.some((name) => name.startsWith(CMD_PREFIX)),
    );
    const kinds = agentNames.map((name) =>
      agentKind(name, { agentFiles: name.startsWith(CMD_PREFIX) ? agentFiles : undefined, home })
    );
    const minPassRate = fraction(values, "min-pass-rate");
    const passReward = fraction(values, "pass-reward");
    const repeat = count(values, "repeat", 1, 1, MAX_REPEAT);
    const concurrency = count(values, "concurrency", 4, 1, MAX_CONCURRENCY);
    const seed = count(values, "seed", 0, 0);
    const shardText = stringOption(values, "shard");
    const shard = shardText === undefined ? undefined : parseShard(shardText);
    const requestTimeoutMs = secondsOption(values, "request-timeout", DEFAULT_REQUEST_TIMEOUT_MS);
    const providerOptions = providerFlags(values);
    if (values.prices !== undefined && values["no-cost"] === true) {
      throw new UsageError(
        "--prices and --no-cost contradict each other: --prices prices the model, --no-cost " +
          "records its cost as unknown; pass one of them",
      );
    }
    const suite = await loadSuite(taskPaths(positionals));
    const tasks = selectTasks(suite, (values.task as string[] | undefined) ?? []);
    const models = (values.model as string[] | undefined) ?? ["scripted"];
    if (values.model !== undefined && !kinds.some((kind) => kind.needs.model)) {
      throw new UsageError(
        `--model is for agents driven by a model; --agent ${agentNames.join(", ")} uses none`,
      );
    }
    requireProviderFlagsApply(values, kinds);
    // A sweep: the same tasks, repeats and seed for every agent and model, one run each (an
    // agent that needs no model is given none, so it is built once). A pair whose agent cannot
    // speak the model's API is passed over, unless the agent has no other (its build says why).
    const setups = [];
    for (const kind of kinds) {
      const offered = kind.needs.model ? models : [models[0]];
      const taken = offered.filter((model) => takesModel(kind, model));
      for (const model of taken.length > 0 ? taken : offered) {
        const built = await kind.build(() =>
          setupLoopAgent({
            model,
            baseUrl: stringOption(values, "base-url"),
            pricesFile: stringOption(values, "prices"),
            noCost: values["no-cost"] === true,
            policyFile: stringOption(values, "policy"),
            env: (name) => io.env(name),
            clock: systemClock,
            requestTimeoutMs,
            providerOptions,
            onCrash: crashProcess(io),
            home,
            repeat,
          }, tasks)
        );
        setups.push({ kind, ...built });
      }
      for (const model of taken.length > 0 ? offered.filter((m) => !taken.includes(m)) : []) {
        io.err(`passing over ${kind.name} with --model ${model}: it speaks ${kind.speaks}'s API\n`);
      }
    }
    const json = values.json === true;
    const write = json ? io.err : io.out;
    const outcomes = [];
    for (const setup of setups) {
      const progress = progressDisplay(write, io.isTerminal && !json, systemClock);
      const outcome = await withInterrupt(io, (signal) =>
        runEval(
          {
            paths: taskPaths(positionals),
            suite,
            tasks,
            agent: setup.kind.name,
            model: setup.model,
            settings: setup.settings,
            repeat,
            concurrency,
            seed,
            home,
            passReward,
            shard,
          },
          {
            sandbox: sandboxFromEnv(io),
            clock: systemClock,
            signal,
            progress,
            agent: setup.agent,
            crash: setup.crash,
            gateway: setup.gateway,
          },
        ));
      progress.done();
      printSummary(write, outcome);
      outcomes.push(outcome);
      if (outcome.interrupted) break;
    }
    if (typeof values.junit === "string") {
      const runs = outcomes.map((outcome) => outcome.results);
      await Deno.writeTextFile(values.junit, renderJunit(runs));
      write(`junit: ${values.junit}\n`);
    }
    if (json) {
      const results = outcomes.map((outcome) => outcome.results);
      io.out(JSON.stringify(results.length === 1 ? results[0] : { runs: results }, null, 2) + "\n");
    }
    let code: number = Math.max(...outcomes.map(exitCodeOf));
    if (code === ExitCode.yes && minPassRate !== undefined) {
      for (const outcome of outcomes) {
        const rate = outcome.results.summary.pass_rate ?? 0;
        if (rate < minPassRate) {
          write(
            `run ${outcome.run.id}: pass rate ${
              (rate * 100).toFixed(1)
            }% is below --min-pass-rate ${(minPassRate * 100).toFixed(1)}%\n`,
          );
          code = ExitCode.no;
        }
      }
    }
    return code;
  },
};
