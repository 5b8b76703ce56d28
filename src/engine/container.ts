/**
 * One Docker container: started hardened (an unprivileged user, every capability dropped,
 * `no-new-privileges`, an init process, limits on processes, memory and CPU, a size-limited `/tmp`,
 * no network unless the task asks), commands run in it with a deadline that kills the command's
 * whole process tree, and files copied in and out as tar streams (bind-mounted from the host only
 * where the spec names a mount: an installed agent's own files, read-only, and a gateway's socket).
 *
 * @module
 */
import {
  type ChannelAnswer,
  ExecChannel,
  KILLED,
  MAX_CHANNEL_INPUT,
  NO_WORKDIR,
} from "./_exec_channel.ts";
import { HELPER, installHelper } from "./_helper.ts";
import { killQuietly } from "./_kill_quietly.ts";
import { posix } from "node:path";
import { InfrastructureError } from "../core/errors.ts";
import { shellQuote } from "../core/shell_quote.ts";
import { BoundedBuffer } from "./_bounded_buffer.ts";
import { within } from "./_within.ts";
import { writeAndClose } from "./_write_and_close.ts";
import { type Docker, firstLine } from "./docker.ts";
import {
  AGENT_USER,
  type BindMount,
  type ContainerSpec,
  type ExecOptions,
  type ExecResult,
  type FilesystemChange,
  type LabelledContainer,
  missingImageMessage,
  type ResourceLimits,
  type SandboxContainer,
  type UnpackedExecResult,
} from "./sandbox.ts";
import { readTarStream, type TarEntry, type TarEntryHeader } from "./tar.ts";
import { UnsealableWorkspaceError } from "./unsealable.ts";

/** Default limits: enough for a test suite, small enough that a fork bomb stays contained. */
export const DEFAULT_LIMITS: ResourceLimits = { pids: 256, memoryMb: 1024, cpus: 1, tmpMb: 512 };

// `docker exec` makes the command a session leader; its first output line is that session's id,
// so everything it starts (which inherits the session) can be found and killed at the deadline.
const EXEC_WRAPPER = 'echo "$$"; exec sh -c "$1"';
// Freeze every process of the session first (so none can react to a sibling's death, say by
// running the next command of a script), then kill them all.
const KILL_SESSION = `sid=$1
members() {
  for stat in /proc/[0-9]*/stat; do
    read -r line < "$stat" 2>/dev/null || continue
    set -- \${line##*) }
    [ "$4" = "$sid" ] || continue
    case "$1" in Z) continue ;; T|t) [ "$want" = running ] && continue ;; esac
    pid=\${stat#/proc/}; printf '%s ' "\${pid%/stat}"
  done
}
round=0
while [ "$round" -lt 50 ]; do
  want=running; running=$(members)
  [ -z "$running" ] && break
  kill -STOP $running 2>/dev/null
  round=$((round + 1))
done
want=all; all=$(members)
[ -n "$all" ] && kill -KILL $all 2>/dev/null
want=all; [ -z "$(members)" ]`;

// Run by the helper's shell (its own applets, never the container's): every process outside the
// container's own session (its init and idle process) and this exec's is killed, over rounds (a
// forking process is caught by the next), then the first $1 paths (relative to /) are archived
// with what they hold and the rest alone, as two archives one after the other (busybox's
// `--no-recursion` covers its whole command line). (The loops are functions: their `set --`
// must not clobber the paths.)
const KILL_OTHERS_AND_ARCHIVE =
  `sid_of() { read -r line < "/proc/$1/stat" && set -- \${line##*) } && echo "$4"; }
kill_others() {
keep=$(sid_of 1); self=$(sid_of $$)
round=0
while [ "$round" -lt 20 ]; do
  others=""
  for stat in /proc/[0-9]*/stat; do
    read -r line < "$stat" 2>/dev/null || continue
    set -- \${line##*) }
    [ "$4" = "$keep" ] || [ "$4" = "$self" ] || [ "$1" = Z ] && continue
    pid=\${stat#/proc/}; others="$others \${pid%/stat}"
  done
  [ -z "$others" ] && break
  kill -KILL $others 2>/dev/null
  round=$((round + 1))
done
}
archive() {
  kind=$1; from=$2; to=$3; shift 3; total=$#; i=0
  for path do
    [ "$i" -ge "$from" ] && [ "$i" -lt "$to" ] && set -- "$@" "$path"
    i=$((i + 1))
  done
  shift "$total"
  [ "$#" -eq 0 ] && return 0
  if [ "$kind" = whole ]; then tar -c -f - "$@"; else tar -c --no-recursion -f - "$@"; fi
}
count=$1; shift
kill_others
cd / && archive whole 0 "$count" "$@" && archive alone "$count" "$#" "$@"`;

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const ROOT = "0:0";
// A copy through the root channel is staged in the container's /tmp: larger ones use `docker cp`.
const MAX_CHANNEL_COPY_BYTES = 64 * 1024 * 1024;

// Printed once the files are unpacked, before the command starts: its absence means unpacking
// failed, whatever the exit code.
const UNPACKED_MARK = "verdict: sealed workspace staged";

// The unpacking, in a subshell so that the command keeps the image's umask.
const UNPACK = `set -e\n(umask 0 && tar -x -f -)\necho '${UNPACKED_MARK}'`;

/**
 * Starts a container that idles until commands are run in it.
 *
 * @example
 * ```ts
 * import { Docker } from "./docker.ts";
 * import { startContainer } from "./container.ts";
 * import { AGENT_USER } from "./sandbox.ts";
 * const docker = new Docker({ PATH: "/usr/bin:/bin" });
 * const container = await startContainer(docker, {
 *   image: "verdict/busybox", workdir: "/workspace", network: "none", labels: {}, user: AGENT_USER,
 * });
 * console.log((await container.exec("echo hi", { timeoutMs: 5000 })).stdout);
 * await container.remove();
 * ```
 * @throws {InfrastructureError} when the image is missing or the engine refuses.
 */
export async function startContainer(
  docker: Docker,
  spec: ContainerSpec,
  signal?: AbortSignal,
): Promise<Container> {
  const limits = spec.limits ?? DEFAULT_LIMITS;
  const args = [
    "run",
    "--detach",
    "--pull=never",
    "--init",
    `--network=${spec.network}`,
    ...(spec.capabilities === "engine-default" ? [] : ["--cap-drop=ALL"]),
    "--security-opt=no-new-privileges",
    `--pids-limit=${limits.pids}`,
    `--memory=${limits.memoryMb}m`,
    `--memory-swap=${limits.memoryMb}m`,
    `--cpus=${limits.cpus}`,
    `--tmpfs=/tmp:rw,exec,nosuid,nodev,size=${limits.tmpMb}m,mode=1777`,
    `--workdir=${spec.workdir}`,
    ...(spec.user ? [`--user=${spec.user}`] : []),
    ...(spec.mounts ?? []).map(mountOption),
    ...Object.entries(spec.env ?? {}).flatMap(([key, value]) => ["--env", `${key}=${value}`]),
    ...Object.entries(spec.labels).flatMap(([key, value]) => ["--label", `${key}=${value}`]),
    spec.image,
    "sleep",
    "infinity",
  ];
  const result = await docker.run(args, { signal });
  if (result.code !== 0) {
    if (/No such image|not found|pull access denied|manifest unknown/i.test(result.stderr)) {
      throw new InfrastructureError(missingImageMessage(spec.image));
    }
    throw new InfrastructureError(
      `could not start a container from ${spec.image}: ${firstLine(result.stderr)}`,
    );
  }
  const id = new TextDecoder().decode(result.stdout).trim();
  if (!spec.channel) return new Container(docker, id, spec);
  const user = spec.user ?? AGENT_USER;
  // The helper goes in while the agent starts, off its critical path; root's channel runs on it.
  const helper = installHelper(docker, id);
  return new Container(docker, id, spec, {
    commands: ExecChannel.open(docker, id, user),
    helper,
    root: async () => await helper ? ExecChannel.open(docker, id, ROOT, HELPER) : undefined,
  });
}

/**
 * A container's exec channels: one for the commands of its main user, and one as root that copies
 * files out (a root without capabilities: it reads what `docker cp` reads, but for files of other
 * users that their modes hide, where `copyOut` falls back to `docker cp`).
 */
export interface ContainerChannels {
  /** The main user's, on the container's own `sh`: the agent's commands run as the image has it. */
  commands: ExecChannel;
  /** Whether the engine's static helper ({@linkcode HELPER}) was copied in. */
  helper: Promise<boolean>;
  /**
   * Root's, on the helper's shell (never the container's tools, which the agent may have replaced
   * even as a user, when the image lets it), opened on the first copy out (which `docker cp`
   * makes while it starts): an agent that is never checkpointed needs none. Undefined without the
   * helper.
   */
  root: () => Promise<ExecChannel | undefined>;
}

/** A running container. */
export class Container implements SandboxContainer {
  readonly #docker: Docker;
  /** The container id. */
  readonly id: string;
  /** How it was started. */
  readonly spec: ContainerSpec;
  readonly #channel: ExecChannel | undefined;
  readonly #helper: Promise<boolean> | undefined;
  // A copy of the helper begun by `installHelper` and not yet used by `killAndArchive`.
  #freshHelper: Promise<boolean> | undefined;
  #openRoot: (() => Promise<ExecChannel | undefined>) | undefined;
  #rootChannel: ExecChannel | undefined;
  #stopped = false;

  /**
   * Wraps a started container; use {@linkcode startContainer}. With `channels`, commands of its
   * user and copies out go through them while they work, and through `docker exec` and
   * `docker cp` otherwise.
   */
  constructor(docker: Docker, id: string, spec: ContainerSpec, channels?: ContainerChannels) {
    this.#docker = docker;
    this.id = id;
    this.spec = spec;
    this.#channel = channels?.commands;
    this.#helper = channels?.helper;
    this.#openRoot = channels?.root;
  }

  /** See {@linkcode SandboxContainer.channelLost}. */
  get channelLost(): string | undefined {
    const lost = this.#channel?.lost;
    return lost === KILLED ? undefined : lost;
  }

  /**
   * Runs a shell command (`sh -c`). At the deadline, or when the signal aborts, every process of
   * the command's session is killed, including ones it left in the background.
   * @throws {InfrastructureError} when the container is gone or the engine refuses the command.
   */
  async exec(script: string, options: ExecOptions): Promise<ExecResult> {
    const user = options.user ?? this.spec.user ?? AGENT_USER;
    const channel = this.#channel;
    if (channel && channel.lost === undefined && !channel.busy && channel.user === user) {
      const answered = await this.#execOnChannel(channel, script, options);
      if (answered !== undefined) return answered;
    }
    const args = [
      "exec",
      ...(options.stdin ? ["--interactive"] : []),
      `--user=${user}`,
      `--workdir=${options.workdir ?? this.spec.workdir}`,
      ...Object.entries(options.env ?? {}).flatMap(([key, value]) => ["--env", `${key}=${value}`]),
      this.id,
      "sh",
      "-c",
      EXEC_WRAPPER,
      "verdict-exec",
      script,
    ];
    const child = this.#docker.spawn(args, { stdin: options.stdin !== undefined });
    const limit = options.maxOutputBytes ?? 4 * 1024 * 1024;
    const stdout = new BoundedBuffer(limit);
    const stderr = new BoundedBuffer(limit);
    let resolveSession!: (pid: string | undefined) => void;
    const session = new Promise<string | undefined>((resolve) => (resolveSession = resolve));
    let stopping: Promise<void> | undefined;
    let timedOut = false;
    let aborted = false;
    const stop = (reason: "timeout" | "abort") => {
      if (reason === "timeout") timedOut = true;
      else aborted = true;
      stopping ??= this.#killSession(session, user, async () => {
        // The client normally exits with the killed command; make sure it does.
        const exited = await within(child.status.then(() => true), 5_000, false);
        if (!exited) killQuietly(child);
      });
    };
    const timer = setTimeout(() => stop("timeout"), options.timeoutMs);
    const onAbort = () => stop("abort");
    options.signal?.addEventListener("abort", onAbort, { once: true });
    if (options.signal?.aborted) onAbort();
    try {
      const writing = options.stdin ? writeAndClose(child, options.stdin) : Promise.resolve();
      const [status] = await Promise.all([
        child.status,
        readSessionThenOutput(child.stdout, stdout, resolveSession),
        pump(child.stderr, stderr),
        writing,
      ]);
      resolveSession(undefined);
      await stopping;
      const stderrText = stderr.text();
      if (!timedOut && !aborted && isEngineExecFailure(status.code, stderrText)) {
        throw new InfrastructureError(
          `could not run a command in container ${this.id.slice(0, 12)}: ${firstLine(stderrText)}`,
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
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
    }
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
    const workdir = options.workdir ?? this.spec.workdir;
    const texts = [script, workdir, ...Object.entries(env).flat()];
    if (
      Object.keys(env).some((key) => !ENV_NAME.test(key)) ||
      texts.some((text) => text.includes("\0")) ||
      texts.reduce((size, text) => size + text.length, 0) + (options.stdin?.length ?? 0) >
        MAX_CHANNEL_INPUT
    ) return undefined;
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
    const stop = (reason: "timeout" | "abort") => {
      if (answered) return;
      if (reason === "timeout") timedOut = true;
      else aborted = true;
      stopping ??= this.#killSession(session, channel.user, async () => {
        // The channel answers once the command is killed; one that does not is done for.
        if (!await within(running.then(() => true), 5_000, false)) await channel.kill();
      });
    };
    const timer = setTimeout(() => stop("timeout"), options.timeoutMs);
    const onAbort = () => stop("abort");
    options.signal?.addEventListener("abort", onAbort, { once: true });
    if (options.signal?.aborted) onAbort();
    let answer: ChannelAnswer;
    try {
      answer = await running;
      await stopping;
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
    }
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
      throw new InfrastructureError(
        `could not run a command in container ${this.id.slice(0, 12)}: no such workdir ${workdir}`,
      );
    }
    return { exitCode: answer.exitCode, stdout: answer.stdout.text(), stderr, timedOut, aborted };
  }

  /**
   * Unpacks `tar` in the workdir as the command's user, then runs `command` in the same
   * `docker exec` (one operation fewer than a `docker cp` first); see
   * {@linkcode SandboxContainer.unpackAndExec}.
   */
  async unpackAndExec(
    tar: Uint8Array,
    command: string,
    options: Omit<ExecOptions, "stdin">,
  ): Promise<UnpackedExecResult> {
    const result = await this.exec(`${UNPACK}\nexec ${command}`, { ...options, stdin: tar });
    if (!result.stdout.startsWith(`${UNPACKED_MARK}\n`)) return { ...result, unpacked: false };
    return { ...result, stdout: result.stdout.slice(UNPACKED_MARK.length + 1), unpacked: true };
  }

  /**
   * Copies a tar stream into the container at `destination`. Files keep the numeric owners and
   * modes written in the tar, which Verdict always sets explicitly.
   */
  async copyIn(tar: Uint8Array, destination: string): Promise<void> {
    const result = await this.#docker.run(["cp", "-", `${this.id}:${destination}`], { stdin: tar });
    if (result.code !== 0) {
      throw new InfrastructureError(
        `could not copy files into the container: ${firstLine(result.stderr)}`,
      );
    }
  }

  /**
   * Copies a path out of the container (running, paused or stopped) as tar entries, parsed as the
   * stream arrives: `admit` sees each entry before its bytes are read, and what it throws stops
   * the copy and is thrown as is.
   * @throws {InfrastructureError} when the engine cannot copy the path, or takes longer than
   * `timeoutMs` (default two minutes).
   */
  async copyOut(
    path: string,
    admit?: (entry: TarEntryHeader) => void,
    timeoutMs = 120_000,
  ): Promise<TarEntry[]> {
    const copied = await this.#copyOutOnChannel(path, admit, timeoutMs);
    return copied ?? this.#readTar(["cp", `${this.id}:${path}`, "-"], path, admit, timeoutMs);
  }

  /**
   * `tar -c` as root through the root channel, named as `docker cp` names entries; undefined
   * when the channel cannot do it (gone, busy, a file root may not read, too large), for
   * `docker cp` to copy instead.
   */
  async #copyOutOnChannel(
    path: string,
    admit: ((entry: TarEntryHeader) => void) | undefined,
    timeoutMs: number,
  ): Promise<TarEntry[] | undefined> {
    const open = this.#openRoot;
    this.#openRoot = undefined;
    if (open && !this.#stopped) {
      void open().then((channel) => {
        if (channel && this.#stopped) void channel.kill();
        else this.#rootChannel = channel;
      }, () => undefined);
    }
    const channel = this.#rootChannel;
    if (!channel || channel.lost !== undefined || channel.busy) return undefined;
    const parent = posix.dirname(path);
    const name = posix.basename(path);
    const answer = await within(
      channel.run({
        script: `{ tar -c -f - -C ${shellQuote(parent)} ${shellQuote(name)} || ` +
          `echo 'verdict: tar failed' >&2; } | head -c ${MAX_CHANNEL_COPY_BYTES + 1}`,
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

  /**
   * Kills every process but the container's own idle one, then archives the paths, in one
   * `docker exec` as root run by the engine's static helper, copied in just before (over whatever
   * the agent left at its path; the copy `installHelper` began last, when no seal used it yet):
   * see {@linkcode SandboxContainer.killAndArchive}.
   */
  async killAndArchive(
    whole: readonly string[],
    alone: readonly string[],
    admit?: (entry: TarEntryHeader) => void,
    timeoutMs = 120_000,
  ): Promise<TarEntry[]> {
    const what = `${whole.length + alone.length} paths`;
    const fresh = this.#freshHelper ?? installHelper(this.#docker, this.id);
    this.#freshHelper = undefined;
    if (!await fresh) {
      throw new InfrastructureError(`could not copy ${what} out: the engine's helper is missing`);
    }
    // `./` first: a name cannot be read as an option.
    const named = (paths: readonly string[]) =>
      paths.map((path) => `./${path.replace(/^\/+/, "")}`);
    return await this.#readTar(
      [
        "exec",
        "--user=0:0",
        this.id,
        HELPER,
        "sh",
        "-c",
        KILL_OTHERS_AND_ARCHIVE,
        "verdict-archive",
        String(whole.length),
        ...named(whole),
        ...named(alone),
      ],
      what,
      admit,
      timeoutMs,
      true,
    );
  }

  async #readTar(
    args: string[],
    path: string,
    admit: ((entry: TarEntryHeader) => void) | undefined,
    timeoutMs: number,
    concatenated = false,
  ): Promise<TarEntry[]> {
    const child = this.#docker.spawn(args);
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

  /** See {@linkcode SandboxContainer.installHelper}: `docker cp`. */
  async installHelper(): Promise<string | undefined> {
    const copying = installHelper(this.#docker, this.id);
    this.#freshHelper = copying;
    return await copying ? HELPER : undefined;
  }

  /** See {@linkcode SandboxContainer.changes}: `docker diff`. */
  async changes(): Promise<FilesystemChange[]> {
    const result = await this.#docker.run(["diff", this.id]);
    if (result.code !== 0) {
      throw new InfrastructureError(
        `could not list the changes of container ${this.id.slice(0, 12)}: ${
          firstLine(result.stderr)
        }`,
      );
    }
    return parseDockerDiff(new TextDecoder().decode(result.stdout));
  }

  /**
   * Stops every process in the container for good: `docker kill` ends its init, and with it every
   * process in its PID namespace. Files can still be copied out. Already stopped is fine.
   *
   * (Not `docker pause`: a cgroup-v1 freezer that catches a `docker exec` half started leaves
   * the container wedged, so that not even `docker rm --force` returns.)
   */
  async stop(): Promise<void> {
    const killed = await this.#docker.run(["kill", this.id]);
    await this.#closeChannels();
    if (killed.code !== 0 && !/is not running/i.test(killed.stderr)) {
      throw new InfrastructureError(
        `could not stop container ${this.id.slice(0, 12)}: ${firstLine(killed.stderr)}`,
      );
    }
  }

  /** Removes the container with everything still running in it. Already gone is fine. */
  async remove(): Promise<void> {
    const closing = this.#closeChannels();
    const result = await this.#docker.run(["rm", "--force", "--volumes", this.id]);
    await closing;
    if (result.code !== 0 && !/No such container/i.test(result.stderr)) {
      throw new InfrastructureError(
        `could not remove container ${this.id.slice(0, 12)}: ${firstLine(result.stderr)}`,
      );
    }
  }

  async #closeChannels(): Promise<void> {
    this.#stopped = true;
    await Promise.all([this.#channel?.kill(), this.#rootChannel?.kill()]);
  }

  async #killSession(
    session: Promise<string | undefined>,
    user: string,
    ensureEnded: () => Promise<void>,
  ) {
    const pid = await within(session, 10_000, undefined);
    // The helper's shell when it is in: the container's own may be the agent's.
    const helper = await this.#helper?.catch(() => false);
    if (pid !== undefined) {
      await this.#docker.run([
        "exec",
        `--user=${user}`,
        this.id,
        ...(helper ? [HELPER] : []),
        "sh",
        "-c",
        KILL_SESSION,
        "verdict-kill",
        pid,
      ], {
        timeoutMs: 30_000,
      }).catch(() => undefined);
    }
    await ensureEnded();
  }
}

/**
 * Removes containers by id, with whatever still runs in them, in one `docker rm`.
 *
 * @example
 * ```ts
 * import { Docker } from "./docker.ts";
 * import { removeContainers } from "./container.ts";
 * await removeContainers(new Docker({ PATH: "/usr/bin:/bin" }), []);
 * ```
 */
export async function removeContainers(docker: Docker, ids: readonly string[]): Promise<void> {
  if (ids.length > 0) await docker.run(["rm", "--force", "--volumes", ...ids]);
}

/**
 * Containers carrying every one of the `filters` labels, with their state and the values of the
 * labels named in `keys`: one `docker ps` for any number of containers.
 *
 * @example
 * ```ts
 * import { Docker } from "./docker.ts";
 * import { findLabelled } from "./container.ts";
 * const docker = new Docker({ PATH: "/usr/bin:/bin" });
 * console.log(await findLabelled(docker, ["verdict.run=abc"], ["verdict.session"]));
 * ```
 */
export async function findLabelled(
  docker: Docker,
  filters: readonly string[],
  keys: readonly string[] = [],
): Promise<LabelledContainer[]> {
  const text = await docker.text([
    "ps",
    "--all",
    ...filters.flatMap((label) => ["--filter", `label=${label}`]),
    "--format",
    ["{{.ID}}", "{{.State}}", ...keys.map((key) => `{{.Label ${JSON.stringify(key)}}}`)].join("\t"),
  ]);
  return text.split("\n").filter((line) => line !== "").map((line) => {
    const [id, state, ...values] = line.split("\t");
    return { id, state, labels: Object.fromEntries(keys.map((key, i) => [key, values[i] ?? ""])) };
  });
}

// `--mount` reads its value as CSV: each field is quoted, so a path may hold commas.
function mountOption(mount: BindMount): string {
  const field = (text: string) => `"${text.replaceAll('"', '""')}"`;
  return `--mount=${
    [
      "type=bind",
      field(`source=${mount.source}`),
      field(`target=${mount.target}`),
      ...(mount.readOnly ? ["readonly"] : []),
    ].join(",")
  }`;
}

function isEngineExecFailure(code: number, stderr: string): boolean {
  return (code === 126 || code === 127 || code === 1) &&
    /^(Error response from daemon|OCI runtime exec failed|Error: No such container)/m.test(stderr);
}

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

/**
 * `docker diff` printed a line that is not a change: most likely the rest of a path with a line
 * break in its name.
 */
export class UnreadableDiffError extends InfrastructureError {
  /** The line. */
  readonly line: string;
  /** Makes the error. */
  constructor(line: string) {
    super(`docker diff printed a line Verdict cannot read: ${line}`);
    this.name = "UnreadableDiffError";
    this.line = line;
  }
}

const DIFF_KINDS: Record<string, FilesystemChange["kind"]> = {
  A: "added",
  C: "changed",
  D: "deleted",
};

/**
 * Parses `docker diff` output (`A /path`, `C /path`, `D /path`, one per line).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseDockerDiff } from "./container.ts";
 * assert.deepEqual(parseDockerDiff("C /etc\nD /etc/issue\n"), [
 *   { kind: "changed", path: "/etc" },
 *   { kind: "deleted", path: "/etc/issue" },
 * ]);
 * ```
 */
export function parseDockerDiff(text: string): FilesystemChange[] {
  const changes: FilesystemChange[] = [];
  for (const line of text.split("\n")) {
    if (line === "") continue;
    const kind = DIFF_KINDS[line[0]];
    if (kind === undefined || line[1] !== " " || !line.startsWith("/", 2)) {
      throw new UnreadableDiffError(line);
    }
    changes.push({ kind, path: line.slice(2) });
  }
  return changes;
}
