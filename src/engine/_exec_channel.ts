/**
 * A persistent exec channel: one long-lived shell in a container (started with `docker exec -i`)
 * that runs commands sent as lines on its stdin and answers with framed results on its stdout, so
 * a command costs a few forks in the container instead of a `docker exec` (a CLI process, an API
 * call and a runtime exec each).
 *
 * The server ({@linkcode CHANNEL_SERVER} in `_shell_programs.ts`) is plain POSIX `sh` with `setsid`
 * and `base64`, which busybox and Debian both have. A request is one line of shell-quoted words,
 * `SEQ KEEP INPUT WORKDIR SCRIPT NAME=VALUE...`: how many bytes of each output to keep, stdin in
 * base64 (`-` for none), then the workdir, the script and the environment. The command runs in a
 * session of its own (`setsid`, so a deadline can kill it with everything it started, as
 * `docker exec` commands are killed), its stdin from a file or `/dev/null`, its stdout and stderr
 * into files. The server answers `started SEQ SID` as soon as it runs, then, once its main process
 * exits,
 * `done SEQ CODE OUT_TOTAL OUT_KEPT ERR_TOTAL ERR_KEPT` followed by the kept bytes of stdout and
 * stderr (the whole of each, or its first and last `KEEP / 2` bytes). Background children left
 * running write to files nobody reads, never into the channel.
 *
 * @module
 */
import { BoundedBuffer } from "./_bounded_buffer.ts";
import { killQuietly } from "./_kill_quietly.ts";
import type { Docker } from "./docker.ts";
import { within } from "./_within.ts";
import { shellQuote } from "../core/shell_quote.ts";
import { CHANNEL_READY, CHANNEL_SERVER } from "./_shell_programs.ts";

const OUTPUT_DEADLINE_MS = 30_000;

/**
 * Commands with more bytes than this (script, workdir, environment and stdin together) go through
 * `docker exec` instead: the server reads a request a byte at a time, and stdin grows by a third in
 * base64.
 */
export const MAX_CHANNEL_INPUT = 48 * 1024;

/** What {@linkcode ExecChannel.lost} says once its owner killed it (not a loss to record). */
export const KILLED = "killed";

/** One command for the channel. */
export interface ChannelRequest {
  /** The `sh -c` script to run. */
  script: string;
  /** Where. */
  workdir: string;
  /** Extra environment (names that `export` takes). */
  env: Readonly<Record<string, string>>;
  /** Bytes on stdin. */
  stdin?: Uint8Array;
  /** Most bytes kept of each of stdout and stderr (head and tail). */
  keep: number;
  /** Told the command's session id once it runs, so a deadline can kill the session. */
  onSession(sid: string): void;
}

/** What the channel answered. */
export type ChannelAnswer =
  | { kind: "done"; exitCode: number; stdout: BoundedBuffer; stderr: BoundedBuffer }
  /** The channel could not take the command; it never ran. */
  | { kind: "refused"; reason: string }
  /** The channel died while the command ran: its outcome is unknown. */
  | { kind: "lost"; reason: string };

/**
 * A channel into one container, for commands of the user it runs as.
 *
 * @example
 * ```ts ignore
 * import { Docker } from "./docker.ts";
 * import { ExecChannel } from "./_exec_channel.ts";
 * const channel = ExecChannel.open(new Docker({ PATH: "/usr/bin:/bin" }), "CONTAINER", "1000:1000");
 * const answer = await channel.run({ script: "echo hi", keep: 1024, onSession() {} });
 * await channel.kill();
 * ```
 */
export class ExecChannel {
  /** The user its commands run as. */
  readonly user: string;
  readonly #child: Deno.ChildProcess;
  readonly #reader: FrameReader;
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #ready: Promise<boolean>;
  readonly #exited: Promise<void>;
  #seq = 0;
  #busy = false;
  #lost: string | undefined;

  private constructor(child: Deno.ChildProcess, user: string) {
    this.user = user;
    this.#child = child;
    this.#reader = new FrameReader(child.stdout);
    this.#writer = child.stdin.getWriter();
    const stderr = new BoundedBuffer(4096);
    const draining = (async () => {
      for await (const chunk of child.stderr) stderr.push(chunk);
    })();
    this.#exited = Promise.all([child.status, draining]).then(() => {
      const said = stderr.text().trim().split("\n")[0];
      this.#lost ??= `the channel's process ended${said ? `: ${said}` : ""}`;
    });
    this.#ready = this.#reader.line().then((line) => {
      if (line === CHANNEL_READY) return true;
      this.#lost ??= line === undefined
        ? "the channel's process ended before it was ready"
        : `the channel did not start: ${line}`;
      return false;
    }, () => false);
  }

  /**
   * Starts the channel's shell in container `id`, as `user`: the container's `sh`, or with
   * `busybox` (an absolute path) that busybox's shell, which runs its own applets first.
   */
  static open(docker: Docker, id: string, user: string, busybox?: string): ExecChannel {
    const child = docker.spawn([
      "exec",
      "--interactive",
      `--user=${user}`,
      "--workdir=/",
      id,
      ...(busybox ? [busybox] : []),
      "sh",
      "-c",
      CHANNEL_SERVER,
    ], { stdin: true });
    return new ExecChannel(child, user);
  }

  /** Why the channel cannot be used any more, once it cannot. */
  get lost(): string | undefined {
    return this.#lost;
  }

  /** Whether a command runs on it now (one at a time). */
  get busy(): boolean {
    return this.#busy;
  }

  /**
   * Runs one command. A channel that is busy, not ready or gone refuses it (nothing ran); one that
   * dies while the command runs answers `lost`.
   */
  async run(request: ChannelRequest): Promise<ChannelAnswer> {
    if (this.#busy) return { kind: "refused", reason: "busy" };
    this.#busy = true;
    try {
      if (!await this.#ready || this.#lost !== undefined) {
        return { kind: "refused", reason: this.#lost ?? "not ready" };
      }
      const seq = ++this.#seq;
      const line = [
        String(seq),
        String(request.keep),
        request.stdin?.length ? base64(request.stdin) : "-",
        request.workdir,
        request.script,
        ...Object.entries(request.env).map(([key, value]) => `${key}=${value}`),
      ].map(oneLineWord).join(" ") + "\n";
      try {
        await this.#writer.write(new TextEncoder().encode(line));
      } catch {
        return { kind: "refused", reason: this.#lost ?? "the channel's stdin is closed" };
      }
      const started = await this.#reader.line();
      if (started === `refused ${seq}`) return { kind: "refused", reason: "bad request" };
      const sid = started?.match(new RegExp(`^started ${seq} (\\d+)$`))?.[1];
      if (sid === undefined) {
        // Ended before it said it started the command: the command never ran.
        const { reason } = this.#die(started, "before the command started");
        return { kind: "refused", reason };
      }
      request.onSession(sid);
      const done = await this.#reader.line();
      const fields = done?.match(
        new RegExp(`^done ${seq} (\\d+) (\\d+) (\\d+) (\\d+) (\\d+)$`),
      )?.slice(1).map(Number);
      if (fields === undefined) return this.#die(done, "while the command ran");
      const [exitCode, outTotal, outKept, errTotal, errKept] = fields;
      // The output follows at once; a short file (truncated by a process left behind) would
      // leave the reader waiting, so it gets a deadline.
      const output = (async () => [
        await this.#output(outTotal, outKept, request.keep),
        await this.#output(errTotal, errKept, request.keep),
      ])();
      const [stdout, stderr] = await within(output, OUTPUT_DEADLINE_MS, []);
      if (stdout === undefined || stderr === undefined) {
        return this.#die(undefined, "while it sent the command's output");
      }
      return { kind: "done", exitCode, stdout, stderr };
    } finally {
      this.#busy = false;
    }
  }

  /**
   * Sends `stop`: the server kills every process its user may signal but itself and init (the
   * container's idle process among them, so that init exits), then ends. Whether it ended within
   * `deadlineMs`; false, with nothing sent, when the channel is busy, not ready or gone.
   */
  async stopProcesses(deadlineMs: number): Promise<boolean> {
    if (this.#busy) return false;
    this.#busy = true;
    try {
      if (!await this.#ready || this.#lost !== undefined) return false;
      this.#lost = KILLED;
      await this.#writer.write(new TextEncoder().encode("stop\n"));
    } catch {
      return false;
    } finally {
      this.#busy = false;
    }
    return await within(this.#exited.then(() => true), deadlineMs, false);
  }

  /** Kills the channel's process (its container keeps running). */
  async kill(): Promise<void> {
    this.#lost ??= KILLED;
    killQuietly(this.#child);
    await this.#exited;
    await this.#reader.cancel();
  }

  async #output(total: number, kept: number, keep: number): Promise<BoundedBuffer | undefined> {
    const buffer = new BoundedBuffer(keep);
    const bytes = await this.#reader.exactly(kept);
    if (bytes === undefined) return undefined;
    buffer.push(bytes);
    buffer.noteDropped(Math.max(0, total - kept));
    return buffer;
  }

  #die(line: string | undefined, when: string): { kind: "lost"; reason: string } {
    const reason = line === undefined
      ? `the channel's process ended ${when}`
      : `the channel printed something unexpected ${when}: ${line.slice(0, 200)}`;
    this.#lost ??= reason;
    killQuietly(this.#child);
    return { kind: "lost", reason: this.#lost };
  }
}

/** Reads lines and exact byte counts from a stream. */
class FrameReader {
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  #buffer = new Uint8Array(0);
  #ended = false;

  constructor(stream: ReadableStream<Uint8Array>) {
    this.#reader = stream.getReader();
  }

  /** The next line without its newline; undefined at the end of the stream. */
  async line(): Promise<string | undefined> {
    for (;;) {
      const newline = this.#buffer.indexOf(10);
      if (newline !== -1) {
        const line = new TextDecoder().decode(this.#buffer.subarray(0, newline));
        this.#buffer = this.#buffer.subarray(newline + 1);
        return line;
      }
      if (!await this.#fill()) return undefined;
    }
  }

  /** The next `count` bytes; undefined when the stream ends first. */
  async exactly(count: number): Promise<Uint8Array | undefined> {
    while (this.#buffer.length < count) {
      if (!await this.#fill()) return undefined;
    }
    const bytes = this.#buffer.slice(0, count);
    this.#buffer = this.#buffer.subarray(count);
    return bytes;
  }

  async cancel(): Promise<void> {
    await this.#reader.cancel().catch(() => undefined);
  }

  async #fill(): Promise<boolean> {
    if (this.#ended) return false;
    const { done, value } = await this.#reader.read().catch(() => ({
      done: true,
      value: undefined,
    }));
    if (done || value === undefined) {
      this.#ended = true;
      return false;
    }
    const joined = new Uint8Array(this.#buffer.length + value.length);
    joined.set(this.#buffer);
    joined.set(value, this.#buffer.length);
    this.#buffer = joined;
    return true;
  }
}

// A shell word on one line: single-quoted, each newline spliced in from the server's `$nl`.
function oneLineWord(text: string): string {
  return shellQuote(text).replaceAll("\n", `'"$nl"'`);
}

function base64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}
