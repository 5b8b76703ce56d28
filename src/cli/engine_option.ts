/**
 * `--engine NAME[=SLOTS]`, repeatable: the Docker engines a run spreads its trials over, each a
 * Docker context name or a `DOCKER_HOST` URL (`unix://`, `tcp://`, `ssh://`) with the trials it
 * runs at once (default 1). Each is asked before the run: it must answer, speak a recent enough
 * API, and share the first engine's architecture.
 *
 * @module
 */
import { InfrastructureError, UsageError } from "../core/errors.ts";
import { Docker } from "../engine/docker.ts";
import { DockerSandbox } from "../engine/docker_sandbox.ts";
import type { RunEngine } from "../eval/run/engine_seats.ts";
import type { Io } from "./io.ts";
import { MAX_CONCURRENCY } from "./option_values.ts";
import { dockerFromEnv } from "./runtime.ts";

/** The oldest engine API a run uses (Docker 20.10's is 1.41). */
const MIN_API = [1, 41] as const;

/**
 * The engines `--engine` names, parsed: name and slots, nothing asked yet.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseEngines } from "./engine_option.ts";
 * assert.deepEqual(parseEngines(["a=2", "unix:///run/b.sock"]), [
 *   { name: "a", slots: 2 },
 *   { name: "unix:///run/b.sock", slots: 1 },
 * ]);
 * ```
 * @throws {UsageError} naming the value when a name is empty or repeated, or SLOTS is not a whole
 * number from 1.
 */
export function parseEngines(values: readonly string[]): { name: string; slots: number }[] {
  const engines = values.map((value) => {
    const match = /^(.*?)(?:=(\d+))?$/.exec(value)!;
    const [name, slots] = [match[1], match[2] === undefined ? 1 : Number(match[2])];
    if (name === "" || name.includes("=")) {
      throw new UsageError(
        `--engine ${value}: write NAME or NAME=SLOTS, NAME a Docker context or a DOCKER_HOST URL ` +
          `and SLOTS the trials it runs at once (a whole number from 1)`,
      );
    }
    if (slots < 1 || slots > MAX_CONCURRENCY) {
      throw new UsageError(`--engine ${value}: SLOTS must be from 1 to ${MAX_CONCURRENCY}`);
    }
    return { name, slots };
  });
  const names = engines.map(({ name }) => name);
  const twice = names.find((name, index) => names.indexOf(name) !== index);
  if (twice !== undefined) throw new UsageError(`--engine ${twice} is given twice: give it once`);
  return engines;
}

/**
 * The engines, each asked for its API version and architecture.
 *
 * @throws {InfrastructureError} naming an engine that does not answer or is too old (exit 3).
 * @throws {UsageError} naming two engines of different architectures (exit 2).
 */
export async function connectEngines(
  io: Io,
  engines: readonly { name: string; slots: number }[],
): Promise<RunEngine[]> {
  const connected = await Promise.all(engines.map(async ({ name, slots }) => {
    const docker = engineDocker(io, name);
    const result = await docker.run(
      ["version", "--format", "{{.Server.APIVersion}} {{.Server.Arch}}"],
      { timeoutMs: 30_000 },
    ).catch((error: Error) => ({ code: 1, stdout: new Uint8Array(), stderr: error.message }));
    const [api, arch] = new TextDecoder().decode(result.stdout).trim().split(" ");
    if (result.code !== 0 || arch === undefined) {
      const why = result.stderr.trim().split("\n")[0] || `exit ${result.code}`;
      throw new InfrastructureError(`--engine ${name} does not answer: ${why}`);
    }
    const [major, minor] = api.split(".").map(Number);
    if (major < MIN_API[0] || (major === MIN_API[0] && minor < MIN_API[1])) {
      throw new InfrastructureError(
        `--engine ${name} speaks Docker API ${api}; Verdict needs ${MIN_API.join(".")} or newer ` +
          `(Docker 20.10): upgrade that engine`,
      );
    }
    return { name, slots, sandbox: new DockerSandbox(docker), arch };
  }));
  const odd = connected.find(({ arch }) => arch !== connected[0].arch);
  if (odd !== undefined) {
    throw new UsageError(
      `--engine ${odd.name} is ${odd.arch} but ${connected[0].name} is ${connected[0].arch}: ` +
        `the same task image would differ between them. Fix: give engines of one architecture`,
    );
  }
  return connected.map(({ name, slots, sandbox }) => ({ name, slots, sandbox }));
}

/**
 * The docker CLI aimed at one engine: a URL goes in DOCKER_HOST, a context name in DOCKER_CONTEXT.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { engineDocker } from "./engine_option.ts";
 * import { memoryIo } from "./io.ts";
 * const docker = engineDocker(memoryIo({ DOCKER_HOST: "unix:///a.sock" }), "build-2");
 * assert.deepEqual([docker.env.DOCKER_HOST, docker.env.DOCKER_CONTEXT], [undefined, "build-2"]);
 * ```
 */
export function engineDocker(io: Io, name: string): Docker {
  const env = dockerFromEnv(io).env;
  delete env.DOCKER_HOST;
  delete env.DOCKER_CONTEXT;
  if (name.includes("://")) env.DOCKER_HOST = name;
  else env.DOCKER_CONTEXT = name;
  return new Docker(env);
}
