/**
 * The shape of a command: its options, positionals, help text and what it runs. Parsing and help
 * are generic (`main.ts`); a command only declares itself and does its work.
 *
 * @module
 */
import type { Io } from "./io.ts";

/** One flag of a command. */
export interface OptionSpec {
  /** A string takes a value; a boolean does not. */
  type: "string" | "boolean";
  /** Whether the flag may repeat (values collect into a list). */
  multiple?: boolean;
  /** A one-letter alias. */
  short?: string;
  /** The value's name in help, such as `N` or `FILE`. */
  valueName?: string;
  /** One line of help. */
  description: string;
  /**
   * The value is a path the command reads, writes (a file) or writes into (a folder, which may not
   * exist yet); checked before the command runs.
   */
  path?: "read" | "write" | "write-folder";
  /** Values that name something built in rather than a file (`--policy default`). */
  keywords?: readonly string[];
}

/** Parsed flag values, by flag name. */
export type OptionValues = Record<string, string | boolean | string[] | undefined>;

/** What a command receives when it runs. */
export interface CommandContext {
  /** The process's streams and environment. */
  io: Io;
  /** Flag values. */
  values: OptionValues;
  /** Positional arguments. */
  positionals: string[];
}

/** A command of the CLI. */
export interface Command {
  /** Its name as typed, such as `verify` or `tasks check`. */
  name: string;
  /** One line for the command list. */
  summary: string;
  /** The usage line's arguments, such as `RUN`. */
  args: string;
  /** Its flags. */
  options: Record<string, OptionSpec>;
  /** Bounds on the number of positionals. */
  positionals: { min: number; max: number };
  /** The positionals are task paths the command reads (see {@linkcode taskPaths}). */
  takesTaskPaths?: boolean;
  /** Paragraphs shown under the usage line in `--help`. */
  details?: string;
  /** Runs the command; resolves to the exit code. */
  run(context: CommandContext): Promise<number>;
}

/** The suite a command reads when it is given no task path. */
export const DEFAULT_TASK_PATHS: readonly string[] = ["tasks"];

/**
 * The task paths a command was given, or the default suite.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { taskPaths } from "./command.ts";
 * assert(taskPaths([])[0] === "tasks" && taskPaths(["a"])[0] === "a");
 * ```
 */
export function taskPaths(positionals: readonly string[]): string[] {
  return [...(positionals.length > 0 ? positionals : DEFAULT_TASK_PATHS)];
}

/** The `--home` flag every command that touches the state directory takes. */
export const HOME_OPTION: Record<string, OptionSpec> = {
  home: {
    type: "string",
    valueName: "DIR",
    description: "state directory (default .verdict/, or $VERDICT_HOME)",
    path: "write-folder",
  },
};

/** The `--json` flag of commands with machine-readable output. */
export const JSON_OPTION: Record<string, OptionSpec> = {
  json: { type: "boolean", description: "machine-readable output on stdout" },
};
