/**
 * The channel transport: commands of the container's main user go through its exec channel, and
 * copies out through root's (on the helper's shell), while they work; whatever a channel cannot
 * take (gone, busy, another user, too large, a file root may not read) goes to the plain
 * transport it falls back on, so that the outcome is the one `docker exec` or `docker cp` gives.
 *
 * @module
 */
import { posix } from "node:path";
import { InfrastructureError } from "../core/errors.ts";
import {
  type ChannelAnswer,
  type ExecChannel,
  KILLED,
  MAX_CHANNEL_INPUT,
} from "./_exec_channel.ts";
import { archiveForChannel, NO_WORKDIR } from "./_shell_programs.ts";
import { armDeadline, killSession, type Transport, type TransportTarget } from "./_transport.ts";
import { within } from "./_within.ts";
import type { ExecOptions, ExecResult } from "./sandbox.ts";
import { readTarStream, type TarEntry, type TarEntryHeader } from "./tar.ts";

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
// A copy through the root channel is staged in the container's /tmp: larger ones use `docker cp`.
const MAX_CHANNEL_COPY_BYTES = 64 * 1024 * 1024;
// How long the channel's end may take once told to stop every process; then the engine kills.
const STOP_DEADLINE_MS = 5_000;

/**
 * A container's exec channels: one for the commands of its main user, and one as root that copies
 * files out (a root without capabilities: it reads what `docker cp` reads, but for files of other
 * users that their modes hide, where `copyOut` falls back to `docker cp`).
 */
export interface ContainerChannels {
  /** The main user's, on the container's own `sh`: the agent's commands run as the image has it. */
  commands: ExecChannel;
  /**
   * Copies the engine's static helper (`_helper.ts`) in, once, when first asked (by root's
   * channel, or to kill a session); whether it is in.
   */
  helper: () => Promise<boolean>;
  /**
   * Root's, on the helper's shell (never the container's tools, which the agent may have replaced
   * even as a user, when the image lets it), opened on the first copy out (which `docker cp`
   * makes while it starts): an agent that is never checkpointed needs none. Undefined without the
   * helper.
   */
  root: () => Promise<ExecChannel | undefined>;
}

/** The exec channels first, `fallback` for what they cannot take. */
export class ChannelTransport implements Transport {
  readonly #target: TransportTarget;
  readonly #commands: ExecChannel;
  readonly #fallback: Transport;
  #openRoot: (() => Promise<ExecChannel | undefined>) | undefined;
  #rootChannel: ExecChannel | undefined;
  #closed = false;

  /** Serves `target` (whose `helper` is `channels.helper`) through `channels`. */
  constructor(target: TransportTarget, channels: ContainerChannels, fallback: Transport) {
    this.#target = target;
    this.#commands = channels.commands;
    this.#openRoot = channels.root;
    this.#fallback = fallback;
  }

  /** Why the commands' channel was lost; not when this transport closed it. */
  get lost(): string | undefined {
    const lost = this.#commands.lost;
    return lost === KILLED ? undefined : lost;
  }

  /** On the channel when it is free and runs as `user`; see {@linkcode Transport.exec}. */
  async exec(script: string, options: ExecOptions, user: string): Promise<ExecResult> {
    const channel = this.#commands;
    if (channel.lost === undefined && !channel.busy && channel.user === user) {
      const answered = await this.#execOnChannel(channel, script, options);
      if (answered !== undefined) return answered;
    }
    return await this.#fallback.exec(script, options, user);
  }

  /** Through root's channel when it can; see {@linkcode Transport.copyOut}. */
  async copyOut(
    path: string,
    admit: ((entry: TarEntryHeader) => void) | undefined,
    timeoutMs: number,
  ): Promise<TarEntry[]> {
    const copied = await this.#copyOutOnChannel(path, admit, timeoutMs);
    return copied ?? await this.#fallback.copyOut(path, admit, timeoutMs);
  }

  /**
   * Through the commands' channel when it is free and runs as `user`, with the server's own
   * `kill` (`stop`); see {@linkcode Transport.stopProcesses}.
   */
  async stopProcesses(user: string): Promise<boolean> {
    const channel = this.#commands;
    if (channel.lost !== undefined || channel.busy || channel.user !== user) return false;
    return await channel.stopProcesses(STOP_DEADLINE_MS);
  }

  /** Kills both channels; root's is never opened after this. */
  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all([this.#commands.kill(), this.#rootChannel?.kill()]);
  }

  /**
   * Runs the command on the channel with `exec`'s semantics; undefined when the channel cannot
   * take it (it never ran), for `docker exec` to run it instead.
   */
  async #execOnChannel(
    channel: ExecChannel,
    script: string,
    options: ExecOptions,
  ): Promise<ExecResult | undefined> {
    const env = options.env ?? {};
    const workdir = options.workdir ?? this.#target.workdir;
    // Stdin that comes later cannot be part of the request line.
    if (options.later || !fitsChannel(script, workdir, env, options.stdin)) return undefined;
    let resolveSession!: (sid: string | undefined) => void;
    const session = new Promise<string | undefined>((resolve) => (resolveSession = resolve));
    let timedOut = false;
    let aborted = false;
    let stopping: Promise<void> | undefined;
    let answered = false;
    const running = channel.run({
      script,
      workdir,
      env,
      stdin: options.stdin,
      keep: options.maxOutputBytes ?? 4 * 1024 * 1024,
      onSession: resolveSession,
    }).finally(() => {
      answered = true;
      resolveSession(undefined);
    });
    const disarm = armDeadline(options, (reason) => {
      if (answered) return;
      if (reason === "timeout") timedOut = true;
      else aborted = true;
      stopping ??= killSession(this.#target, session, channel.user, async () => {
        // The channel answers once the command is killed; one that does not is done for.
        if (!await within(running.then(() => true), 5_000, false)) await channel.kill();
      });
    });
    let answer: ChannelAnswer;
    try {
      answer = await running;
      await stopping;
    } finally {
      disarm();
    }
    return this.#result(answer, workdir, timedOut, aborted);
  }

  /** The channel's answer as `exec`'s result; undefined when the command never ran. */
  #result(
    answer: ChannelAnswer,
    workdir: string,
    timedOut: boolean,
    aborted: boolean,
  ): ExecResult | undefined {
    if (answer.kind === "refused") return undefined;
    if (answer.kind === "lost") {
      return {
        exitCode: 137,
        stdout: "",
        stderr: `verdict: the exec channel died while the command ran (${answer.reason})\n`,
        timedOut,
        aborted,
      };
    }
    const stderr = answer.stderr.text();
    if (answer.exitCode === 126 && stderr === `${NO_WORKDIR}\n`) {
      const container = this.#target.id.slice(0, 12);
      throw new InfrastructureError(
        `could not run a command in container ${container}: no such workdir ${workdir}`,
      );
    }
    return { exitCode: answer.exitCode, stdout: answer.stdout.text(), stderr, timedOut, aborted };
  }

  /**
   * `tar -c` as root through the root channel, named as `docker cp` names entries; undefined
   * when the channel cannot do it (gone, busy, a file root may not read, too large), for
   * `docker cp` to copy instead. The first call opens the channel, for the calls after it.
   */
  async #copyOutOnChannel(
    path: string,
    admit: ((entry: TarEntryHeader) => void) | undefined,
    timeoutMs: number,
  ): Promise<TarEntry[] | undefined> {
    const open = this.#openRoot;
    this.#openRoot = undefined;
    if (open && !this.#closed) {
      void open().then((channel) => {
        if (channel && this.#closed) void channel.kill();
        else this.#rootChannel = channel;
      }, () => undefined);
    }
    const channel = this.#rootChannel;
    if (!channel || channel.lost !== undefined || channel.busy) return undefined;
    const answer = await within(
      channel.run({
        script: archiveForChannel(
          posix.dirname(path),
          posix.basename(path),
          MAX_CHANNEL_COPY_BYTES,
        ),
        workdir: "/",
        env: {},
        keep: 2 * (MAX_CHANNEL_COPY_BYTES + 1),
        onSession() {},
      }),
      timeoutMs,
      undefined,
    );
    if (answer === undefined) {
      await channel.kill(); // still copying after the deadline: `docker cp` gets a fresh one
      return undefined;
    }
    if (answer.kind !== "done" || answer.exitCode !== 0 || answer.stderr.text() !== "") {
      return undefined;
    }
    const tar = answer.stdout.bytes();
    if (tar.length > MAX_CHANNEL_COPY_BYTES) return undefined;
    return await readTarStream(ReadableStream.from([tar]), admit);
  }
}

// Whether the channel may carry the command: names `export` takes, no NUL, and a request small
// enough (the rest goes through `docker exec`).
function fitsChannel(
  script: string,
  workdir: string,
  env: Readonly<Record<string, string>>,
  stdin: Uint8Array | undefined,
): boolean {
  const texts = [script, workdir, ...Object.entries(env).flat()];
  return !(
    Object.keys(env).some((key) => !ENV_NAME.test(key)) ||
    texts.some((text) => text.includes("\0")) ||
    texts.reduce((size, text) => size + text.length, 0) + (stdin?.length ?? 0) > MAX_CHANNEL_INPUT
  );
}
