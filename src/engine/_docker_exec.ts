/**
 * The plain transport: each command is its own `docker exec` (wrapped by
 * {@linkcode EXEC_WRAPPER}, so that its session can be killed at the deadline) and each copy out a
 * `docker cp`, parsed as the tar stream arrives. Every container has it; a channel container falls
 * back on it.
 *
 * @module
 */
import { InfrastructureError } from "../core/errors.ts";
import { BoundedBuffer } from "./_bounded_buffer.ts";
import { killQuietly } from "./_kill_quietly.ts";
import { EXEC_WRAPPER } from "./_shell_programs.ts";
import { armDeadline, killSession, type Transport, type TransportTarget } from "./_transport.ts";
import { within } from "./_within.ts";
import { writeAndClose, writeLaterAndClose } from "./_write_and_close.ts";
import { type Docker, firstLine } from "./docker.ts";
import type { ExecOptions, ExecResult } from "./sandbox.ts";
import { readTarStream, type TarEntry, type TarEntryHeader } from "./tar.ts";
import { UnsealableWorkspaceError } from "./unsealable.ts";

/** Commands through `docker exec`, copies out through `docker cp`. */
export class DockerExecTransport implements Transport {
  readonly #target: TransportTarget;
  /** A plain transport never loses anything. */
  readonly lost: string | undefined = undefined;

  /** Serves `target`. */
  constructor(target: TransportTarget) {
    this.#target = target;
  }

  /** Runs the command in its own `docker exec`; see {@linkcode Transport.exec}. */
  async exec(script: string, options: ExecOptions, user: string): Promise<ExecResult> {
    const { docker, id, workdir } = this.#target;
    const args = [
      "exec",
      ...(options.stdin || options.later ? ["--interactive"] : []),
      `--user=${user}`,
      `--workdir=${options.workdir ?? workdir}`,
      ...Object.entries(options.env ?? {}).flatMap(([key, value]) => ["--env", `${key}=${value}`]),
      id,
      "sh",
      "-c",
      EXEC_WRAPPER,
      "verdict-exec",
      script,
    ];
    const child = docker.spawn(args, { stdin: options.stdin !== undefined || !!options.later });
    const limit = options.maxOutputBytes ?? 4 * 1024 * 1024;
    const stdout = new BoundedBuffer(limit);
    const stderr = new BoundedBuffer(limit);
    let resolveSession!: (pid: string | undefined) => void;
    const session = new Promise<string | undefined>((resolve) => (resolveSession = resolve));
    let stopping: Promise<void> | undefined;
    let timedOut = false;
    let aborted = false;
    const disarm = armDeadline(options, (reason) => {
      if (reason === "timeout") timedOut = true;
      else aborted = true;
      stopping ??= killSession(this.#target, session, user, async () => {
        // The client normally exits with the killed command; make sure it does.
        const exited = await within(child.status.then(() => true), 5_000, false);
        if (!exited) killQuietly(child);
      });
    });
    try {
      const writing = options.later
        ? writeLaterAndClose(child, options.later, options.signal)
        : options.stdin
        ? writeAndClose(child, options.stdin).then(() => undefined)
        : Promise.resolve(undefined);
      const [status, , , notDelivered] = await Promise.all([
        child.status,
        readSessionThenOutput(child.stdout, stdout, resolveSession),
        pump(child.stderr, stderr),
        writing,
      ]);
      resolveSession(undefined);
      await stopping;
      if (notDelivered) throw notDelivered.reason;
      const stderrText = stderr.text();
      if (!timedOut && !aborted && isEngineExecFailure(status.code, stderrText)) {
        throw new InfrastructureError(
          `could not run a command in container ${id.slice(0, 12)}: ${firstLine(stderrText)}`,
        );
      }
      return {
        exitCode: status.code,
        stdout: stdout.text(),
        stderr: stderrText,
        timedOut,
        aborted,
      };
    } finally {
      disarm();
    }
  }

  /** `docker cp CONTAINER:PATH -`; see {@linkcode Transport.copyOut}. */
  copyOut(
    path: string,
    admit: ((entry: TarEntryHeader) => void) | undefined,
    timeoutMs: number,
  ): Promise<TarEntry[]> {
    const { docker, id } = this.#target;
    return readDockerTar(docker, ["cp", `${id}:${path}`, "-"], path, admit, timeoutMs);
  }

  /** Never: without a channel, only the engine stops the container. */
  stopProcesses(): Promise<boolean> {
    return Promise.resolve(false);
  }

  /** Nothing to close. */
  async close(): Promise<void> {}
}

/**
 * Runs the docker CLI with `args` and parses the tar stream it prints as it arrives (`admit` sees
 * each entry first, and what it throws stops the copy and is thrown as is); `concatenated` when
 * it prints several archives one after the other.
 * @throws {InfrastructureError} when the CLI fails, or takes longer than `timeoutMs`.
 */
export async function readDockerTar(
  docker: Docker,
  args: string[],
  path: string,
  admit: ((entry: TarEntryHeader) => void) | undefined,
  timeoutMs: number,
  concatenated = false,
): Promise<TarEntry[]> {
  const child = docker.spawn(args);
  const stderr = new BoundedBuffer(64 * 1024);
  const errors = pump(child.stderr, stderr);
  let timedOut = false;
  const deadline = setTimeout(() => {
    timedOut = true;
    killQuietly(child);
  }, timeoutMs);
  const failed = (detail: string) =>
    new InfrastructureError(`could not copy ${path} out of the container: ${detail}`);
  try {
    let entries: TarEntry[];
    try {
      entries = await readTarStream(child.stdout, admit, { concatenated });
    } catch (error) {
      killQuietly(child);
      const status = await child.status;
      await errors;
      if (timedOut) throw failed(`it took longer than ${timeoutMs / 1000} s`);
      if (status.success || admitted(error)) throw error;
      throw failed(firstLine(stderr.text()) || `exit ${status.code}`);
    }
    const status = await child.status;
    await errors;
    if (timedOut) throw failed(`it took longer than ${timeoutMs / 1000} s`);
    if (!status.success) throw failed(firstLine(stderr.text()) || `exit ${status.code}`);
    return entries;
  } finally {
    clearTimeout(deadline);
  }
}

function isEngineExecFailure(code: number, stderr: string): boolean {
  return (code === 126 || code === 127 || code === 1) &&
    /^(Error response from daemon|OCI runtime exec failed|Error: No such container)/m.test(stderr);
}

// The first line is the session id printed by `EXEC_WRAPPER`; the rest is the command's stdout.
async function readSessionThenOutput(
  stream: ReadableStream<Uint8Array>,
  buffer: BoundedBuffer,
  onSession: (pid: string | undefined) => void,
): Promise<void> {
  let pending: Uint8Array | undefined = new Uint8Array(0);
  for await (const chunk of stream) {
    if (pending === undefined) {
      buffer.push(chunk);
      continue;
    }
    const joined: Uint8Array = new Uint8Array(pending.length + chunk.length);
    joined.set(pending);
    joined.set(chunk, pending.length);
    const newline = joined.indexOf(10);
    if (newline === -1) {
      pending = joined;
      continue;
    }
    onSession(new TextDecoder().decode(joined.subarray(0, newline)).trim());
    pending = undefined;
    buffer.push(joined.subarray(newline + 1));
  }
  if (pending !== undefined && pending.length > 0) buffer.push(pending);
}

async function pump(stream: ReadableStream<Uint8Array>, buffer: BoundedBuffer): Promise<void> {
  for await (const chunk of stream) buffer.push(chunk);
}

// What the seal itself refused (a limit, a name) stands whatever the copy's exit status.
function admitted(error: unknown): boolean {
  return error instanceof UnsealableWorkspaceError;
}
