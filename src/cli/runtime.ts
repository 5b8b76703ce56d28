/**
 * What the commands that run containers share: the docker CLI with only the environment it
 * needs, and every way a user stops a command turned into one abort signal: SIGINT (Ctrl-C, or
 * sent to the whole process group), SIGTERM, and a closed stdout. The run stops, removes its
 * containers, stays resumable and exits 130 (143 after SIGTERM); a second signal quits at once.
 *
 * @module
 */
import { ExitCode, type ExitCodeValue } from "../core/errors.ts";
import { Docker, DOCKER_ENV_NAMES } from "../engine/docker.ts";
import { DockerSandbox } from "../engine/docker_sandbox.ts";
import type { Sandbox } from "../engine/sandbox.ts";
import type { Io } from "./io.ts";

/**
 * A docker runner whose child processes see only PATH, HOME and the DOCKER_* variables.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { dockerFromEnv } from "./runtime.ts";
 * import { memoryIo } from "./io.ts";
 * const docker = dockerFromEnv(memoryIo({ PATH: "/usr/bin", SECRET: "x" }));
 * assert(!("SECRET" in docker.env));
 * ```
 */
export function dockerFromEnv(io: Io): Docker {
  const env: Record<string, string> = {};
  for (const name of DOCKER_ENV_NAMES) {
    const value = io.env(name);
    if (value !== undefined) env[name] = value;
  }
  env.PATH ??= "/usr/local/bin:/usr/bin:/bin";
  return new Docker(env);
}

/**
 * The container engine the commands run trials in: Docker, through {@linkcode dockerFromEnv}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { sandboxFromEnv } from "./runtime.ts";
 * import { memoryIo } from "./io.ts";
 * assert(typeof sandboxFromEnv(memoryIo({ PATH: "/usr/bin" })).ping === "function");
 * ```
 */
export function sandboxFromEnv(io: Io): Sandbox {
  return new DockerSandbox(dockerFromEnv(io));
}

/**
 * Why a command was stopped, as the abort signal's reason, with the exit code that says so.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Interrupted } from "./runtime.ts";
 * assert(new Interrupted("SIGTERM", 143).exitCode === 143);
 * ```
 */
export class Interrupted extends Error {
  /** 130, or 143 after SIGTERM. */
  readonly exitCode: ExitCodeValue;

  /** Makes the reason: what stopped the command, and its exit code. */
  constructor(cause: string, exitCode: ExitCodeValue) {
    super(`interrupted by ${cause}`);
    this.name = "Interrupted";
    this.exitCode = exitCode;
  }
}

/**
 * The exit code of a command stopped with `reason`: the {@linkcode Interrupted} one's, else 130.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Interrupted, interruptedExitCode } from "./runtime.ts";
 * assert(interruptedExitCode(new Interrupted("SIGTERM", 143)) === 143);
 * assert(interruptedExitCode(undefined) === 130);
 * ```
 */
export function interruptedExitCode(reason: unknown): ExitCodeValue {
  return reason instanceof Interrupted ? reason.exitCode : ExitCode.interrupted;
}

const SIGNALS = [
  { signal: "SIGINT", said: "interrupted", exitCode: ExitCode.interrupted, again: "Ctrl-C again" },
  {
    signal: "SIGTERM",
    said: "terminated (SIGTERM)",
    exitCode: ExitCode.terminated,
    again: "a second SIGTERM",
  },
] as const;

/**
 * An abort signal for the duration of `work`, aborted with an {@linkcode Interrupted} reason on
 * SIGINT, SIGTERM or a closed stdout.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { withInterrupt } from "./runtime.ts";
 * import { memoryIo } from "./io.ts";
 * const aborted = await withInterrupt(memoryIo(), (signal) => Promise.resolve(signal.aborted));
 * assert(!aborted);
 * ```
 */
export async function withInterrupt<T>(
  io: Io,
  work: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const controller = new AbortController();
  const stop = (cause: string, said: string, exitCode: ExitCodeValue, note: string) => {
    if (controller.signal.aborted) return;
    io.err(`\n${said}: stopping the trials and removing their containers${note}\n`);
    controller.abort(new Interrupted(cause, exitCode));
  };
  const listeners = SIGNALS.map(({ signal, said, exitCode, again }) => {
    const listener = () => {
      if (controller.signal.aborted) Deno.exit(exitCode);
      stop(signal, said, exitCode, ` (${again} quits at once)`);
    };
    Deno.addSignalListener(signal, listener);
    return { signal, listener };
  });
  const onClosed = () =>
    stop("a closed stdout", "stdout was closed", ExitCode.interrupted, "; the run can be resumed");
  if (io.stdoutClosed?.aborted) onClosed();
  io.stdoutClosed?.addEventListener("abort", onClosed, { once: true });
  try {
    return await work(controller.signal);
  } finally {
    io.stdoutClosed?.removeEventListener("abort", onClosed);
    for (const { signal, listener } of listeners) Deno.removeSignalListener(signal, listener);
  }
}
