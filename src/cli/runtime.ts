/**
 * What the commands that run containers share: the docker CLI with only the environment it
 * needs, and Ctrl-C turned into an abort signal (a second Ctrl-C quits at once).
 *
 * @module
 */
import { Docker, DOCKER_ENV_NAMES } from "../sandbox/docker.ts";
import type { Io } from "./io.ts";

/**
 * A docker runner whose child processes see only PATH, HOME and the DOCKER_* variables.
 *
 * @example
 * ```ts
 * import { dockerFromEnv } from "./runtime.ts";
 * import { memoryIo } from "./io.ts";
 * const docker = dockerFromEnv(memoryIo({ PATH: "/usr/bin", SECRET: "x" }));
 * console.assert(!("SECRET" in docker.env));
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

/** An abort signal wired to SIGINT for the duration of `work`. */
export async function withInterrupt<T>(
  io: Io,
  work: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const controller = new AbortController();
  const onInterrupt = () => {
    if (controller.signal.aborted) Deno.exit(130);
    io.err(
      "\ninterrupted: stopping the trials and removing their containers (Ctrl-C again quits at once)\n",
    );
    controller.abort(new Error("interrupted"));
  };
  Deno.addSignalListener("SIGINT", onInterrupt);
  try {
    return await work(controller.signal);
  } finally {
    Deno.removeSignalListener("SIGINT", onInterrupt);
  }
}
