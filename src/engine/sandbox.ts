/**
 * The seam between the core and a container engine: what trials, resume, grading, tools and
 * agents need from containers, and nothing of how an engine provides it. {@linkcode DockerSandbox}
 * (`docker_sandbox.ts`) drives the Docker CLI; {@linkcode MemorySandbox} (`memory_sandbox.ts`)
 * keeps containers in memory for unit tests of the core.
 *
 * @module
 */
import type { TarEntry, TarEntryHeader } from "./tar.ts";

/** The numeric owner of everything the agent's user makes or is given. */
export const AGENT_OWNER: Readonly<{ uid: number; gid: number }> = { uid: 1000, gid: 1000 };

/** The unprivileged user every agent and grading command runs as (`uid:gid`). */
export const AGENT_USER = `${AGENT_OWNER.uid}:${AGENT_OWNER.gid}`;

/** Resource limits of a container. */
export interface ResourceLimits {
  /** Most processes at once. */
  pids: number;
  /** Memory, in MiB (swap included). */
  memoryMb: number;
  /** CPUs. */
  cpus: number;
  /**
   * Size of `/tmp`, in MiB: a tmpfs, so that writing there cannot fill the engine's disk (its
   * pages count towards the memory limit too).
   */
  tmpMb: number;
}

/** A host folder bind-mounted into a container. */
export interface BindMount {
  /** The host folder, absolute. */
  source: string;
  /** Where it appears in the container, absolute. */
  target: string;
  /** Whether the container may only read it. */
  readOnly: boolean;
}

/** What to start. */
export interface ContainerSpec {
  /** A local image (never pulled). */
  image: string;
  /** The working folder. */
  workdir: string;
  /**
   * `none` (default), `bridge`, or `container:ID`: joins the network namespace of the running
   * container ID (which shares its loopback, say a gateway's forwarder).
   */
  network: "none" | "bridge" | `container:${string}`;
  /** Labels, such as the run and the session. */
  labels: Record<string, string>;
  /**
   * The container's main user. Omit only for a grading container, whose commands still run as
   * {@linkcode AGENT_USER}.
   */
  user?: string;
  /** Resource limits. */
  limits?: ResourceLimits;
  /** Host folders bind-mounted into it (the only files not copied in as tar streams). */
  mounts?: readonly BindMount[];
  /** Environment every process in it gets, commands run with `exec` included. */
  env?: Readonly<Record<string, string>>;
  /**
   * `none` (default): every capability dropped. `engine-default`: the engine's default set, for
   * tasks written for it (Harbor's run as root with it: `chown`, `apt`, `pip` as root).
   */
  capabilities?: "none" | "engine-default";
  /**
   * Whether commands of the container's main user go through a persistent exec channel (one
   * long-lived shell started with the container) rather than a `docker exec` each. Only for a
   * container whose commands' exit codes decide no verdict: code running in the container can
   * write into the channel.
   */
  channel?: boolean;
}

/** One path the container's filesystem changed, against its image (`docker diff`). */
export interface FilesystemChange {
  /** `added`, `changed` (content, metadata, or a folder whose entries changed) or `deleted`. */
  kind: "added" | "changed" | "deleted";
  /** The absolute path. */
  path: string;
}

/** An image's configuration, as a container started from it sees it. */
export interface ImageConfig {
  /** The image id. */
  id: string;
  /** Its `WORKDIR`, `/` when it sets none. */
  workdir: string;
  /** Its `ENV`, as `KEY=value` lines. */
  env: string[];
}

/** An image to build from a Dockerfile. */
export interface ImageBuild {
  /** The build context folder (host path). */
  context: string;
  /** The Dockerfile (host path). */
  dockerfile: string;
  /** The tag to give the image. */
  tag: string;
  /** Labels for the image. */
  labels: Record<string, string>;
  /** The build's deadline. */
  timeoutMs: number;
  /** Stops the build. */
  signal?: AbortSignal;
}

/** How a build went. */
export interface ImageBuildResult {
  /** Whether the image was built and tagged. */
  built: boolean;
  /** Whether the deadline stopped it. */
  timedOut: boolean;
  /** The build's output, stdout and stderr together (head and tail when long). */
  log: string;
}

/** Options of {@linkcode SandboxContainer.exec}. */
export interface ExecOptions {
  /** The deadline, after which the command's whole process tree is killed. */
  timeoutMs: number;
  /** Who runs it. Default the container's main user, else {@linkcode AGENT_USER}. */
  user?: string;
  /** Where. Default the container's workdir. */
  workdir?: string;
  /** Bytes on stdin. */
  stdin?: Uint8Array;
  /**
   * Stdin that comes after the command has started, with its deadline from then on (in place of
   * `timeoutMs`). When this rejects, stdin is closed empty and the exec throws the reason.
   */
  later?: Promise<LaterInput>;
  /** Extra environment. */
  env?: Record<string, string>;
  /** Stops the command early (its process tree is killed). */
  signal?: AbortSignal;
  /** Most bytes kept of each of stdout and stderr (head and tail). Default 4 MiB. */
  maxOutputBytes?: number;
}

/**
 * Stdin that comes after its command started ({@linkcode ExecOptions.later}) and its deadline.
 *
 * @example
 * ```ts
 * import type { LaterInput } from "./sandbox.ts";
 * const input: LaterInput = { stdin: new Uint8Array(1024), timeoutMs: 60_000 };
 * ```
 */
export interface LaterInput {
  /** The bytes. */
  stdin: Uint8Array;
  /** The command's deadline, from their arrival. */
  timeoutMs: number;
}

/** What a command did. */
export interface ExecResult {
  /** Its exit code (137 when killed). */
  exitCode: number;
  /** stdout, head and tail when long. */
  stdout: string;
  /** stderr, head and tail when long. */
  stderr: string;
  /** Whether the deadline killed it. */
  timedOut: boolean;
  /** Whether the signal stopped it. */
  aborted: boolean;
}

/** Options of {@linkcode SandboxContainer.unpackAndExec}. */
export interface UnpackExecOptions extends Omit<ExecOptions, "stdin" | "later"> {
  /**
   * A file read once the command has ended, in the same exec (one engine call fewer than copying
   * it out afterwards): its text comes back as `report` when it is a regular file, not a link, of
   * at most `maxBytes`. The command's stdout then goes to its stderr, in the order written, so
   * that the exec's stdout carries nothing else.
   */
  report?: { path: string; maxBytes: number };
}

/** What {@linkcode SandboxContainer.unpackAndExec} did. */
export interface UnpackedExecResult extends ExecResult {
  /**
   * Whether the files were unpacked. When false the command never ran, and the rest of the
   * result is the unpacking's (its exit code, its stderr, whether the deadline stopped it).
   */
  unpacked: boolean;
  /** The text of the file `options.report` names, when it was asked for and could be read. */
  report?: string;
}

/** A container found by its labels. */
export interface LabelledContainer {
  /** Its id. */
  id: string;
  /** `running`, `paused`, `exited`, `created`... */
  state: string;
  /** The values of the labels asked for (`""` where it has none). */
  labels: Record<string, string>;
}

/** Options of {@linkcode DerivedImageSource.imageFor}. */
export interface DerivedImageOptions {
  /**
   * A folder that must be absent or empty in the base image: the workdir the tar's files land in.
   * Files the image already has there would mix with the workspace (and, owned by root, would stop
   * the grader from unpacking over them), so such an image is refused when the image is built.
   */
  emptyFolder?: string;
  /** Stops the build. */
  signal?: AbortSignal;
}

/** Makes images that hold a tar stream already unpacked, once per (image, tar). */
export interface DerivedImageSource {
  /**
   * The image `base` with `tar` unpacked at `/`; concurrent callers for a pair share one build.
   * @throws {InfrastructureError} when the base image is missing, has files in `emptyFolder`, or
   * the engine refuses.
   */
  imageFor(base: string, tar: Uint8Array, options?: DerivedImageOptions): Promise<string>;
}

/** A program started in a container whose stdin and stdout are a byte stream (`docker exec -i`). */
export interface AttachedProcess {
  /** What it writes on its stdout. */
  readonly stdout: ReadableStream<Uint8Array>;
  /** Its stdin. */
  readonly stdin: WritableStream<Uint8Array>;
  /** Settles once it ended, with the last line it wrote on stderr ("" for none). */
  readonly ended: Promise<string>;
  /** Ends it: its stream is cut, and the program sees its stdin end. */
  kill(): void;
}

/** A started container: what the core does with one. */
export interface SandboxContainer {
  /** The container id. */
  readonly id: string;
  /** How it was started. */
  readonly spec: ContainerSpec;
  /**
   * Why its exec channel stopped working, when it did while the container ran (its commands go
   * through `docker exec` since); undefined while it works, or when it has none.
   */
  readonly channelLost: string | undefined;
  /**
   * Runs a shell command (`sh -c`). At the deadline, or when the signal aborts, every process of
   * the command's session is killed, including ones it left in the background.
   * @throws {InfrastructureError} when the container is gone or the engine refuses the command.
   */
  exec(script: string, options: ExecOptions): Promise<ExecResult>;
  /**
   * Unpacks `tar` (paths relative to the exec's workdir) there as the command's user, with umask
   * 0 (the files are that user's, with the modes the tar writes), then runs `command` in the same
   * exec: one command such as a quoted path, which replaces the shell. `options.timeoutMs` covers
   * both; a tar that comes later (see {@linkcode ExecOptions.later}) brings its own. The tar holds
   * only what an unprivileged `tar` can make: no set-id or sticky bit, every folder writable by
   * its owner (anything else goes in with {@linkcode copyIn} first).
   * With `options.report`, the command runs in a subshell instead (its stdout sent to stderr),
   * and the file it names is read after it, in the same exec.
   * @throws {InfrastructureError} when the container is gone or the engine refuses the command.
   */
  unpackAndExec(
    tar: Uint8Array | Promise<LaterInput>,
    command: string,
    options: UnpackExecOptions,
  ): Promise<UnpackedExecResult>;
  /**
   * Copies a tar stream into the container at `destination`. Files keep the numeric owners and
   * modes written in the tar, which Verdict always sets explicitly.
   * @throws {InfrastructureError} when the engine cannot copy.
   */
  copyIn(tar: Uint8Array, destination: string): Promise<void>;
  /**
   * Copies a path out of the container (running or stopped) as tar entries named after its last
   * component (`workspace`, `workspace/a.txt`...): `admit` sees each entry before its bytes are
   * read, and what it throws stops the copy and is thrown as is.
   * @throws {InfrastructureError} when the path cannot be copied, or takes longer than
   * `timeoutMs` (default two minutes).
   */
  copyOut(
    path: string,
    admit?: (entry: TarEntryHeader) => void,
    timeoutMs?: number,
  ): Promise<TarEntry[]>;
  /**
   * Kills every process in the running container but its own idle one, then copies paths out with
   * the engine's helper, as root, in one exec, the helper copied in again first (or by the last
   * {@linkcode installHelper} call, when no earlier `killAndArchive` used its copy, so that a caller
   * can make the copy while it asks the engine for something else):
   * each of `whole` (absolute) with everything in it, each of `alone` without what a folder holds;
   * entries named by their paths relative to `/` (`./` first). Quicker than {@linkcode copyOut}
   * for several paths; a root agent that swaps the helper at the last moment could make it lie, so
   * the caller holds the entries to the engine's own list of changes.
   * @throws {InfrastructureError} when the container is gone, the helper cannot be copied in or
   * fails, or the copy takes longer than `timeoutMs` (default two minutes).
   */
  killAndArchive(
    whole: readonly string[],
    alone: readonly string[],
    admit?: (entry: TarEntryHeader) => void,
    timeoutMs?: number,
  ): Promise<TarEntry[]>;
  /**
   * How its filesystem differs from its image's (running or stopped): every added, changed and
   * deleted path, parents before children. Mounts and tmpfs folders are not part of it.
   * @throws {InfrastructureError} when the container is gone or the engine refuses.
   */
  changes(): Promise<FilesystemChange[]>;
  /**
   * Copies the engine's static helper (a statically linked busybox) into the container, root's,
   * over whatever is at its path, and returns that absolute path; undefined when the engine has
   * none (no `verdict/busybox` image) or cannot copy it. `HELPER sh -c SCRIPT` runs a script whose
   * commands are busybox's own applets, never the container's tools (which an agent may have
   * deleted or replaced), nor its libraries or `/etc/ld.so.preload`.
   */
  installHelper(): Promise<string | undefined>;
  /**
   * Starts `argv` (no shell) in the running container as its main user, its stdin and stdout a
   * byte stream to this process, for a long-lived program that speaks over them.
   * @throws {InfrastructureError} when the engine has no such streams (the memory double).
   */
  attach(argv: readonly string[]): AttachedProcess;
  /**
   * Stops every process in the container for good; files can still be copied out. Already
   * stopped is fine.
   * @throws {InfrastructureError} when the container is gone or the engine refuses.
   */
  stop(): Promise<void>;
  /** Removes the container with everything still running in it. Already gone is fine. */
  remove(): Promise<void>;
}

/**
 * A container engine, as the core uses one.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MemorySandbox } from "./memory_sandbox.ts";
 * import { AGENT_USER, type Sandbox } from "./sandbox.ts";
 * const sandbox: Sandbox = new MemorySandbox();
 * const container = await sandbox.start({
 *   image: "verdict/busybox", workdir: "/workspace", network: "none", labels: { "verdict.run": "r1" },
 *   user: AGENT_USER,
 * });
 * assert((await sandbox.findLabelled(["verdict.run=r1"]))[0].id === container.id);
 * await sandbox.removeContainers([container.id]);
 * ```
 */
export interface Sandbox {
  /**
   * Checks that the engine answers; returns its version.
   * @throws {InfrastructureError} naming how to start one.
   */
  ping(signal?: AbortSignal): Promise<string>;
  /** Whether an image exists locally. */
  hasImage(image: string, signal?: AbortSignal): Promise<boolean>;
  /** Sends an image to another engine of its kind (save, load), where it keeps its id; returns it. */
  sendImage(image: string, to: Sandbox, signal?: AbortSignal): Promise<string>;
  /** A local image's configuration, or null when it is not there. */
  imageConfig(image: string, signal?: AbortSignal): Promise<ImageConfig | null>;
  /**
   * Builds an image from a Dockerfile, offline (no network in its `RUN` steps, no pulls).
   * @throws {InfrastructureError} when the engine cannot be asked.
   */
  buildImage(build: ImageBuild): Promise<ImageBuildResult>;
  /**
   * Starts a container that idles until commands are run in it.
   * @throws {InfrastructureError} when the image is missing or the engine refuses.
   */
  start(spec: ContainerSpec, signal?: AbortSignal): Promise<SandboxContainer>;
  /**
   * A container that already exists (found by {@linkcode findLabelled}, say a trial's that
   * survived its process), as started with `spec`. Nothing is checked: a container that is gone
   * fails at its first use.
   */
  adopt(id: string, spec: ContainerSpec): SandboxContainer;
  /**
   * Containers, whatever their state, carrying every one of the `filters` labels (`key=value`, or
   * `key` for any value), newest first, with the values of the labels named in `keys`.
   * @throws {InfrastructureError} when the engine cannot list them.
   */
  findLabelled(filters: readonly string[], keys?: readonly string[]): Promise<LabelledContainer[]>;
  /** Removes containers by id, with whatever still runs in them; unknown ids are ignored. */
  removeContainers(ids: readonly string[]): Promise<void>;
  /**
   * Where derived images come from for one run: `labels` go on whatever the engine makes while
   * building one, so that an interrupted run's sweep finds it.
   */
  derivedImages(labels: Record<string, string>): DerivedImageSource;
}
