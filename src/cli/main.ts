/**
 * The command line: dispatch, flag parsing with "did you mean" suggestions, `--help`,
 * `--version`, and the mapping of errors to exit codes.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { ExitCode, UsageError, VerdictError } from "../core/errors.ts";
import { nearest } from "../core/suggest.ts";
import { VERSION } from "../core/version.ts";
import type { Command, CommandContext, OptionSpec, OptionValues } from "./command.ts";
import { agentsFetchCommand, agentsImportCommand, agentsListCommand } from "./commands/agents.ts";
import { cleanCommand } from "./commands/clean.ts";
import { compareCommand } from "./commands/compare.ts";
import { evalCommand } from "./commands/eval.ts";
import { mergeCommand } from "./commands/merge.ts";
import { replayCommand } from "./commands/replay.ts";
import { reportCommand } from "./commands/report.ts";
import { resumeCommand } from "./commands/resume.ts";
import { runsCommand } from "./commands/runs.ts";
import { showCommand } from "./commands/show.ts";
import { statsCommand } from "./commands/stats.ts";
import {
  tasksCheckCommand,
  tasksExportCommand,
  tasksListCommand,
  tasksNewCommand,
} from "./commands/tasks.ts";
import { verifyCommand } from "./commands/verify.ts";
import { viewCommand } from "./commands/view.ts";
import type { Io } from "./io.ts";
import { checkPathAccess, notPermittedMessage } from "./path_access.ts";

/** Every command, in the order `--help` lists them. */
export const COMMANDS: readonly Command[] = [
  evalCommand,
  tasksCheckCommand,
  tasksListCommand,
  tasksNewCommand,
  tasksExportCommand,
  resumeCommand,
  replayCommand,
  verifyCommand,
  statsCommand,
  compareCommand,
  mergeCommand,
  runsCommand,
  cleanCommand,
  reportCommand,
  showCommand,
  viewCommand,
  agentsFetchCommand,
  agentsImportCommand,
  agentsListCommand,
];

const HELP_OPTION: OptionSpec = { type: "boolean", short: "h", description: "show this help" };

/**
 * Runs the CLI with arguments (without the program name) and returns the exit code. Errors are
 * printed to stderr; nothing is thrown.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { runCli } from "./main.ts";
 * import { memoryIo } from "./io.ts";
 * const io = memoryIo();
 * assert(await runCli(["--version"], io) === 0);
 * ```
 */
export async function runCli(args: readonly string[], io: Io): Promise<number> {
  try {
    return await dispatch([...args], io);
  } catch (error) {
    if (error instanceof VerdictError) {
      io.err(`verdict: ${error.message}\n`);
      return error.exitCode;
    }
    if (error instanceof Deno.errors.NotCapable) {
      io.err(`verdict: ${notPermittedMessage(error)}\n`);
      return ExitCode.usage;
    }
    io.err(`verdict: internal error: ${error instanceof Error ? error.stack : String(error)}\n`);
    return ExitCode.infrastructure;
  }
}

function dispatch(args: string[], io: Io): Promise<number> {
  const first = args[0];
  if (first === undefined || first === "--help" || first === "-h" || first === "help") {
    io.out(generalHelp());
    return Promise.resolve(first === undefined ? ExitCode.usage : ExitCode.yes);
  }
  if (first === "--version" || first === "-V") {
    io.out(`verdict ${VERSION}\n`);
    return Promise.resolve(ExitCode.yes);
  }
  const { command, rest } = findCommand(args);
  const context = parseCommandArgs(command, rest, io);
  if (context === "help") {
    io.out(commandHelp(command));
    return Promise.resolve(ExitCode.yes);
  }
  checkPathAccess(command, context);
  return command.run(context);
}

function findCommand(args: string[]): { command: Command; rest: string[] } {
  const two = `${args[0]} ${args[1] ?? ""}`;
  const byTwo = COMMANDS.find((command) => command.name === two);
  if (byTwo) return { command: byTwo, rest: args.slice(2) };
  const byOne = COMMANDS.find((command) => command.name === args[0]);
  if (byOne) return { command: byOne, rest: args.slice(1) };
  const group = COMMANDS.filter((command) => command.name.startsWith(`${args[0]} `));
  if (group.length > 0) {
    const names = group.map((command) => command.name.split(" ")[1]);
    const typed = args[1];
    const guess = typed === undefined ? undefined : nearest(typed, names);
    throw new UsageError(
      typed === undefined || typed.startsWith("-")
        ? `'${args[0]}' needs a subcommand: ${names.join(" or ")}`
        : `unknown subcommand '${args[0]} ${typed}'` +
          (guess ? `; did you mean '${args[0]} ${guess}'?` : `; expected ${names.join(" or ")}`),
    );
  }
  const names = [...new Set(COMMANDS.map((command) => command.name.split(" ")[0]))];
  const guess = args[0].startsWith("-") ? undefined : nearest(args[0], names);
  throw new UsageError(
    args[0].startsWith("-")
      ? `'${args[0]}' is not a global flag; put flags after a command (see 'verdict --help')`
      : `unknown command '${args[0]}'` +
        (guess ? `; did you mean '${guess}'?` : "; see 'verdict --help'"),
  );
}

function parseCommandArgs(command: Command, args: string[], io: Io): CommandContext | "help" {
  const options = { ...command.options, help: HELP_OPTION };
  let parsed;
  try {
    parsed = parseArgs({
      args: withNegativeValues(args, options),
      options,
      strict: true,
      allowPositionals: true,
    });
  } catch (error) {
    throw new UsageError(describeParseError(command, error));
  }
  if (parsed.values.help) return "help";
  const { positionals } = parsed;
  const { min, max } = command.positionals;
  if (positionals.length < min) {
    throw new UsageError(
      `verdict ${command.name} needs ${command.args}; usage: ${usageLine(command)}`,
    );
  }
  if (positionals.length > max) {
    throw new UsageError(
      `verdict ${command.name} takes ${max === 0 ? "no arguments" : command.args}, got ` +
        `'${positionals.slice(max).join(" ")}' too many; usage: ${usageLine(command)}`,
    );
  }
  return { io, values: parsed.values as OptionValues, positionals };
}

// `--repeat -1` is a value, not a flag: no flag starts with a digit. Joined as `--repeat=-1`, the
// value reaches the flag's own check, whose message says what the flag takes.
function withNegativeValues(
  args: readonly string[],
  options: Record<string, OptionSpec>,
): string[] {
  const joined: string[] = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === "--") return [...joined, ...args.slice(i)];
    const name = args[i].startsWith("--") ? args[i].slice(2) : undefined;
    const next = args[i + 1];
    if (name !== undefined && options[name]?.type === "string" && /^-[0-9.]/.test(next ?? "")) {
      joined.push(`${args[i]}=${next}`);
      i++;
    } else joined.push(args[i]);
  }
  return joined;
}

function describeParseError(command: Command, error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: string }).code;
  const unknown = /Unknown option '(-{1,2}[^']+)'/.exec(message);
  if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION" && unknown) {
    const flag = unknown[1];
    const names = Object.keys(command.options).map((name) => `--${name}`);
    const guess = nearest(flag.split("=")[0], [...names, "--help"]);
    return `unknown flag ${flag} for 'verdict ${command.name}'` +
      (guess ? `; did you mean ${guess}?` : `; see 'verdict ${command.name} --help'`);
  }
  const flag = /^Option '(-{1,2}[^' ]+)/.exec(message)?.[1];
  const value = flag === undefined
    ? "VALUE"
    : command.options[flag.replace(/^-+/, "")]?.valueName ?? "VALUE";
  if (flag !== undefined && message.includes("argument is ambiguous")) {
    return `${flag} needs a value (${value}) before the next flag; write ${flag}=${value} for a ` +
      `value that starts with '-' (verdict ${command.name})`;
  }
  if (flag !== undefined && message.includes("argument missing")) {
    return `${flag} needs a value (${value}) (verdict ${command.name})`;
  }
  if (flag !== undefined && message.includes("does not take an argument")) {
    return `${flag} takes no value: write ${flag} alone (verdict ${command.name})`;
  }
  return `${message.split("\n")[0].split(". To specify")[0]} (verdict ${command.name})`;
}

function usageLine(command: Command): string {
  return `verdict ${command.name}${command.args ? ` ${command.args}` : ""} [options]`;
}

function generalHelp(): string {
  const width = Math.max(...COMMANDS.map((command) => `${command.name} ${command.args}`.length));
  const lines = COMMANDS.map((command) =>
    `  ${`${command.name} ${command.args}`.padEnd(width)}  ${command.summary}`
  );
  return [
    `verdict ${VERSION}: evaluate AI agents in disposable containers; a script's exit code decides.`,
    "",
    "Usage: verdict COMMAND [options]",
    "",
    "Commands:",
    ...lines,
    "",
    "Global flags: --help, --version",
    "Exit codes: 0 yes, 1 no, 2 bad usage or input, 3 infrastructure, 130 interrupted (143 on SIGTERM).",
    "Run 'verdict COMMAND --help' for a command's flags.",
    "",
  ].join("\n");
}

function commandHelp(command: Command): string {
  const options = { ...command.options, help: HELP_OPTION };
  const rows = Object.entries(options).map(([name, spec]) => {
    const short = spec.short ? `-${spec.short}, ` : "    ";
    const value = spec.type === "string" ? ` ${spec.valueName ?? "VALUE"}` : "";
    const repeat = spec.multiple ? " (repeatable)" : "";
    return [`  ${short}--${name}${value}`, `${spec.description}${repeat}`];
  });
  const width = Math.max(...rows.map(([left]) => left.length));
  return [
    `Usage: ${usageLine(command)}`,
    "",
    command.summary,
    ...(command.details ? ["", command.details] : []),
    "",
    "Options:",
    ...rows.map(([left, right]) => `${left.padEnd(width)}  ${right}`),
    "",
  ].join("\n");
}
