/**
 * Errors that carry the process exit code of SPEC section 2, so every command maps a failure to
 * the same code: 2 for bad usage or input, 3 for infrastructure, 1 for corruption found.
 *
 * @module
 */

/**
 * Exit codes shared by every command.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ExitCode, UsageError } from "./errors.ts";
 * assert.equal(new UsageError("no such task").exitCode, ExitCode.usage);
 * ```
 */
export const ExitCode = {
  /** Done, and the answer is yes. */
  yes: 0,
  /** Done, and the answer is no. */
  no: 1,
  /** Bad usage or bad input. */
  usage: 2,
  /** Docker unreachable, an image missing, a model endpoint down after retries. */
  infrastructure: 3,
  /** Interrupted by SIGINT. */
  interrupted: 130,
  /** Stopped by SIGTERM (cleaned up and resumable, as after SIGINT). */
  terminated: 143,
} as const;

/**
 * One of the values of {@linkcode ExitCode}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ExitCode, type ExitCodeValue } from "./errors.ts";
 * const code: ExitCodeValue = ExitCode.infrastructure;
 * assert.equal(code, 3);
 * ```
 */
export type ExitCodeValue = typeof ExitCode[keyof typeof ExitCode];

/**
 * Base class of every error Verdict raises on purpose.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { VerdictError, ExitCode } from "./errors.ts";
 * const error = new VerdictError("no such run", ExitCode.usage);
 * assert(error.exitCode === 2);
 * ```
 */
export class VerdictError extends Error {
  /** The process exit code this error maps to. */
  readonly exitCode: ExitCodeValue;

  /** Makes an error with a message and the exit code it maps to. */
  constructor(message: string, exitCode: ExitCodeValue, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
    this.exitCode = exitCode;
  }
}

/**
 * Bad command-line usage: an unknown command or flag, a missing argument (exit 2).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ExitCode, UsageError } from "./errors.ts";
 * const error = new UsageError("unknown flag --repet; did you mean --repeat?");
 * assert.equal(error.exitCode, ExitCode.usage);
 * ```
 */
export class UsageError extends VerdictError {
  /** Makes a usage error. */
  constructor(message: string, options?: ErrorOptions) {
    super(message, ExitCode.usage, options);
  }
}

/**
 * Where bad input was found and how to fix it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { InputError, type InputProblem } from "./errors.ts";
 * const problem: InputProblem = {
 *   file: "gate.yaml", field: "alpha", problem: "must be below 1", fix: "use 0.05",
 * };
 * assert.deepEqual(new InputError(problem).problems, [problem]);
 * ```
 */
export interface InputProblem {
  /** The file that holds the bad input. */
  file: string;
  /** The field path inside the file, such as `limits.max_steps`; empty for the whole file. */
  field: string;
  /** What is wrong. */
  problem: string;
  /** What to do about it. */
  fix: string;
}

/**
 * Bad input in a file the user wrote (exit 2). The message names the file, the field and the fix.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { InputError } from "./errors.ts";
 * const error = new InputError({
 *   file: "tasks/a/task.yaml",
 *   field: "limits.max_step",
 *   problem: "unknown key",
 *   fix: "remove it, or did you mean max_steps?",
 * });
 * assert(error.message.includes("limits.max_step"));
 * ```
 */
export class InputError extends VerdictError {
  /** Every problem found, in the order found. */
  readonly problems: readonly InputProblem[];

  /** Makes an input error from one or more problems. */
  constructor(problems: InputProblem | readonly InputProblem[], options?: ErrorOptions) {
    const list = Array.isArray(problems) ? problems : [problems as InputProblem];
    super(list.map(formatProblem).join("\n"), ExitCode.usage, options);
    this.problems = list;
  }
}

function formatProblem(problem: InputProblem): string {
  const where = problem.field ? `${problem.file}: ${problem.field}` : problem.file;
  return `${where}: ${problem.problem}. Fix: ${problem.fix}`;
}

/**
 * The machinery around the evaluation failed: Docker, an image, a model endpoint (exit 3).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ExitCode, InfrastructureError } from "./errors.ts";
 * const error = new InfrastructureError("no Docker engine answers: start one with `dockerd &`");
 * assert.equal(error.exitCode, ExitCode.infrastructure);
 * ```
 */
export class InfrastructureError extends VerdictError {
  /** Makes an infrastructure error. */
  constructor(message: string, options?: ErrorOptions) {
    super(message, ExitCode.infrastructure, options);
  }
}

/**
 * An installed agent's program could not be started in its container (the shell answered 126 or
 * 127: not found, not executable): the evaluation's set-up is wrong, not the agent's work on the
 * task, so its trial is an evaluator error.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { AgentStartError, ExitCode } from "./errors.ts";
 * const error = new AgentStartError("the agent's command could not be executed");
 * assert.equal(error.exitCode, ExitCode.infrastructure);
 * ```
 */
export class AgentStartError extends VerdictError {
  /** Makes an agent start error. */
  constructor(message: string, options?: ErrorOptions) {
    super(message, ExitCode.infrastructure, options);
  }
}

/**
 * Stored data does not match its hash (exit 1: the answer to "is it intact?" is no).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { CorruptionError, ExitCode } from "./errors.ts";
 * const error = new CorruptionError("blob 3f2a… does not match its hash");
 * assert.equal(error.exitCode, ExitCode.no);
 * ```
 */
export class CorruptionError extends VerdictError {
  /** Makes a corruption error. */
  constructor(message: string, options?: ErrorOptions) {
    super(message, ExitCode.no, options);
  }
}
