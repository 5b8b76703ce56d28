/**
 * `verdict eval [PATH...]`: run the tasks at each path (default `tasks/`).
 *
 * @module
 */
import { ExitCode, UsageError } from "../../core/errors.ts";
import { systemClock } from "../../core/system_clock.ts";
import { CMD_PREFIX } from "../../agent/cmd_agent.ts";
import { AGENTS } from "../../eval/setup/agent_registry.ts";
import { KIT_RECIPES } from "../../kit/kit_catalogue.ts";
import { DEFAULT_REQUEST_TIMEOUT_MS } from "../../model/_http.ts";
import { resolveAgents } from "../../eval/run/run_agents.ts";
import type { EvalOutcome, Progress } from "../../eval/run/run_lifecycle.ts";
import { planSweep, runPlanned } from "../../eval/run/sweep.ts";
import { renderJunit } from "../../report/junit.ts";
import { parseShard } from "../../eval/setup/shard.ts";
import {
  type Command,
  HOME_OPTION,
  JSON_OPTION,
  type OptionValues,
  taskPaths,
} from "../command.ts";
import { agentFilesOption } from "../agent_files_option.ts";
import { crashProcess } from "../crash_process.ts";
import type { Io } from "../io.ts";
import { count, fraction, MAX_CONCURRENCY, MAX_REPEAT, stringOption } from "../option_values.ts";
import { progressDisplay } from "../progress.ts";
import { PROVIDER_OPTIONS, providerFlags } from "../provider_flags.ts";
import { secondsOption } from "../seconds_option.ts";
import { connectEngines, parseEngines } from "../engine_option.ts";
import { sandboxFromEnv, withInterrupt } from "../runtime.ts";
import { signingKeyFor } from "../signing_key.ts";
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
    engine: {
      type: "string",
      multiple: true,
      valueName: "NAME[=SLOTS]",
      description: "a Docker engine to run trials on (a context name or a DOCKER_HOST URL) and " +
        "how many at once (default 1); repeatable: trials spread over every engine given",
    },
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
    const signingKey = await signingKeyFor(io);
    const agents = (values.agent as string[] | undefined) ?? ["loop"];
    const agentFiles = agentFilesOption(values, agents.some((name) => name.startsWith(CMD_PREFIX)));
    resolveAgents(agents, { agentFiles, home }); // every agent is checked before the numbers
    const minPassRate = fraction(values, "min-pass-rate");
    const passReward = fraction(values, "pass-reward");
    const repeat = count(values, "repeat", 1, 1, MAX_REPEAT);
    const engines = values.engine === undefined
      ? undefined
      : parseEngines(values.engine as string[]);
    if (engines !== undefined && values.concurrency !== undefined) {
      throw new UsageError(
        "--concurrency and --engine both say how many trials run at once: give each engine's " +
          "with --engine NAME=SLOTS",
      );
    }
    const concurrency = engines?.reduce((sum, engine) => sum + engine.slots, 0) ??
      count(values, "concurrency", 4, 1, MAX_CONCURRENCY);
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
    const planned = await planSweep(
      {
        paths: taskPaths(positionals),
        tasks: (values.task as string[] | undefined) ?? [],
        agents,
        models: values.model as string[] | undefined,
        loop: {
          baseUrl: stringOption(values, "base-url"),
          pricesFile: stringOption(values, "prices"),
          noCost: values["no-cost"] === true,
          policyFile: stringOption(values, "policy"),
          env: (name) => io.env(name),
          requestTimeoutMs,
          providerOptions,
        },
        agentFiles,
        repeat,
        concurrency,
        seed,
        home,
        passReward,
        shard,
      },
      systemClock,
      {
        onCrash: crashProcess(io),
        passedOver: (agent, model, speaks) =>
          io.err(`passing over ${agent} with --model ${model}: it speaks ${speaks}'s API\n`),
      },
    );
    const json = values.json === true;
    const write = json ? io.err : io.out;
    const display = sweepDisplay(write, io.isTerminal && !json);
    const connected = engines && await connectEngines(io, engines);
    const { runs } = await withInterrupt(io, (signal) =>
      runPlanned(planned, {
        sandbox: connected?.[0].sandbox ?? sandboxFromEnv(io),
        ...(connected ? { engines: connected } : {}),
        clock: systemClock,
        signal,
        progress: display.progress,
        ...(signingKey ? { signingKey } : {}),
      }, display));
    return await finish(io, values, runs, minPassRate);
  },
};

/**
 * Each run's progress on its own display, and its summary once it ends.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { sweepDisplay } from "./eval.ts";
 * assert.equal(typeof sweepDisplay(() => {}, false).runEnded, "function");
 * ```
 */
export function sweepDisplay(
  write: (text: string) => void,
  terminal: boolean,
): { progress: Progress; runEnded(outcome: EvalOutcome): void } {
  let display = progressDisplay(write, terminal, systemClock);
  return {
    progress: {
      runStarted(...args) {
        display = progressDisplay(write, terminal, systemClock);
        display.runStarted(...args);
      },
      trialFinished: (...args) => display.trialFinished(...args),
    },
    runEnded(outcome) {
      display.done();
      printSummary(write, outcome);
    },
  };
}

/** Writes `--junit` and `--json`, and the exit code: the worst run's, or 1 below `--min-pass-rate`. */
async function finish(
  io: Io,
  values: OptionValues,
  outcomes: readonly EvalOutcome[],
  minPassRate: number | undefined,
): Promise<number> {
  const json = values.json === true;
  const write = json ? io.err : io.out;
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
          `run ${outcome.run.id}: pass rate ${(rate * 100).toFixed(1)}% is below --min-pass-rate ${
            (minPassRate * 100).toFixed(1)
          }%\n`,
        );
        code = ExitCode.no;
      }
    }
  }
  return code;
}
