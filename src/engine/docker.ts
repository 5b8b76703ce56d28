/**
 * The Docker CLI as a subprocess: a clean, explicit environment for the child, stdout and stderr
 * read concurrently, a deadline on every call, and the failures users meet (no engine, no image)
 * turned into infrastructure errors that say what to do.
 *
 * @module
 */
import { killQuietly } from "./_kill_quietly.ts";
import { InfrastructureError } from "../core/errors.ts";
import { writeAndClose } from "./_write_and_close.ts";

/** Environment variables the docker CLI may need; everything else is withheld from it. */
export const DOCKER_ENV_NAMES: readonly string[] = [
  "PATH",
  "HOME",
  "DOCKER_HOST",
  "DOCKER_CONTEXT",
  "DOCKER_CONFIG",
];

/** What to start the engine with, for messages. */
export const START_ENGINE_HINT =
  "start one (for example `sudo dockerd &`, or `sudo systemctl start docker`) and try again";

/** The outcome of one docker command. */
export interface DockerResult {
  /** The CLI's exit code. */
  code: number;
  /** Raw stdout. */
  stdout: Uint8Array;
  /** stderr as text. */
  stderr: string;
}

/** Options of one docker command. */
export interface DockerCallOptions {
  /** Bytes written to the command's stdin, which is then closed. */
  stdin?: Uint8Array;
  /** Aborts the call (the CLI process is killed). */
  signal?: AbortSignal;
  /**
   * Kills the call (SIGKILL: the CLI forwards gentler signals to a container instead of exiting)
   * after this long, and the call throws. Default two minutes.
   */
  timeoutMs?: number;
}

/**
 * Runs docker commands.
 *
 * @example
 * ```ts
 * import { Docker } from "./docker.ts";
 * const docker = new Docker({ PATH: "/usr/bin:/bin" });
 * const result = await docker.run(["version", "--format", "{{.Server.Version}}"]);
 * console.log(new TextDecoder().decode(result.stdout));
 * ```
 */
export class Docker {
  readonly #env: Record<string, string>;

  /** Makes a runner whose child processes see exactly `env`. */
  constructor(env: Record<string, string>) {
    this.#env = { ...env };
  }

  /** The environment given to every docker process. */
  get env(): Record<string, string> {
    return { ...this.#env };
  }

  /**
   * Runs `docker ARGS`; resolves whatever the exit code.
   * @throws {InfrastructureError} when docker is not installed, the engine does not answer, or
   * the call outlives its deadline.
   */
  async run(args: readonly string[], options: DockerCallOptions = {}): Promise<DockerResult> {
    const timeoutMs = options.timeoutMs ?? 120_000;
    let child: Deno.ChildProcess;
    try {
      child = this.spawn(args, { stdin: options.stdin !== undefined, signal: options.signal });
    } catch (error) {
      throw spawnError(error);
    }
    // A killed child resolves with its exit status rather than throwing: the flag tells a
    // deadline's kill from the command's own failure.
    let timedOut = false;
    const deadline = setTimeout(() => {
      timedOut = true;
      killQuietly(child);
    }, timeoutMs);
    try {
      if (options.stdin !== undefined) await writeAndClose(child, options.stdin);
      const output = await child.output();
      if (timedOut) {
        throw new InfrastructureError(
          `docker ${args[0]} did not finish within ${timeoutMs / 1000} s`,
        );
      }
      const result = {
        code: output.code,
        stdout: output.stdout,
        stderr: new TextDecoder().decode(output.stderr),
      };
      if (result.code !== 0 && engineDown(result.stderr)) {
        throw new InfrastructureError(
          `no Docker engine answers: ${firstLine(result.stderr)}; ${START_ENGINE_HINT}`,
        );
      }
      return result;
    } finally {
      clearTimeout(deadline);
    }
  }

  /**
   * Runs `docker ARGS` and returns stdout as trimmed text.
   * @throws {InfrastructureError} when the command fails, with its stderr.
   */
  async text(args: readonly string[], options: DockerCallOptions = {}): Promise<string> {
    const result = await this.run(args, options);
    if (result.code !== 0) {
      throw new InfrastructureError(
        `docker ${args[0]} failed: ${firstLine(result.stderr) || `exit ${result.code}`}`,
      );
    }
    return new TextDecoder().decode(result.stdout).trim();
  }

  /** Starts `docker ARGS` with piped stdout and stderr, for callers that stream. */
  spawn(
    args: readonly string[],
    options: { stdin?: boolean; signal?: AbortSignal } = {},
  ): Deno.ChildProcess {
    return new Deno.Command("docker", {
      args: [...args],
      clearEnv: true,
      env: this.#env,
      stdin: options.stdin ? "piped" : "null",
      stdout: "piped",
      stderr: "piped",
      signal: options.signal,
      // Its own process group: a Ctrl-C sent to the terminal's whole group must not kill a docker
      // call half-way (a `docker run` killed after its create request leaves a container that no
      // one has the id of); stopping is the abort signal's job.
      detached: true,
    }).spawn();
  }

  /**
   * Checks that an engine answers.
   * @throws {InfrastructureError} naming how to start one.
   */
  async ping(signal?: AbortSignal): Promise<string> {
    const result = await this.run(["version", "--format", "{{.Server.Version}}"], {
      signal,
      timeoutMs: 30_000,
    });
    if (result.code !== 0) {
      throw new InfrastructureError(
        `no Docker engine answers: ${firstLine(result.stderr)}; ${START_ENGINE_HINT}`,
      );
    }
    return new TextDecoder().decode(result.stdout).trim();
  }

  /** Whether an image exists locally. */
  async hasImage(image: string, signal?: AbortSignal): Promise<boolean> {
    const result = await this.run(["image", "inspect", "--format", "{{.Id}}", image], { signal });
    return result.code === 0;
  }
}

/** Whether docker's stderr says the engine is unreachable. */
export function engineDown(stderr: string): boolean {
  return /Cannot connect to the Docker daemon|Is the docker daemon running|error during connect|connect: connection refused|docker\.sock: connect/i
    .test(stderr);
}

/** The first non-empty line of a message, without docker's "Error response from daemon: ". */
export function firstLine(text: string): string {
  const line = text.split("\n").map((part) => part.trim()).find((part) => part !== "") ?? "";
  return line.replace(/^Error response from daemon:\s*/, "");
}

function spawnError(error: unknown): Error {
  if (error instanceof Deno.errors.NotFound) {
    return new InfrastructureError(
      "the docker CLI is not installed or not on PATH: install it (`apt-get install docker.io`)",
    );
  }
  return error instanceof Error ? error : new Error(String(error));
}
