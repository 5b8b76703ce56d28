/**
 * The containers of {@linkcode MemorySandbox}: what the memory engine keeps of one (its spec, its
 * state, its files), the operations it records, and the handle `start` and `adopt` give, which
 * acts on the container as Docker would (a stopped container still copies out; a removed one
 * fails every operation but `remove`).
 *
 * @module
 */
import { InfrastructureError } from "../core/errors.ts";
import { MemoryFiles, type MemoryNode } from "./memory_files.ts";
import {
  AGENT_USER,
  type AttachedProcess,
  type ContainerSpec,
  type ExecOptions,
  type ExecResult,
  type FilesystemChange,
  type LaterInput,
  type SandboxContainer,
  type UnpackedExecResult,
  type UnpackExecOptions,
} from "./sandbox.ts";
import { readTarStream, type TarEntry, type TarEntryHeader } from "./tar.ts";

/** One operation asked of the sandbox, in the order asked. */
export type SandboxOperation =
  | { op: "ping" }
  | { op: "hasImage"; image: string }
  | { op: "sendImage"; image: string }
  | { op: "imageFor"; base: string; labels: Record<string, string>; emptyFolder?: string }
  | { op: "start"; spec: ContainerSpec }
  | { op: "adopt"; id: string }
  | { op: "findLabelled"; filters: readonly string[] }
  | { op: "removeContainers"; ids: readonly string[] }
  | { op: "exec"; id: string; script: string; user: string; workdir: string; unpack: boolean }
  | { op: "copyIn"; id: string; destination: string }
  | { op: "copyOut"; id: string; path: string }
  | { op: "changes"; id: string }
  | { op: "imageConfig"; image: string }
  | { op: "buildImage"; tag: string }
  | { op: "stop"; id: string }
  | { op: "remove"; id: string };

/** A container as the memory engine keeps it. */
export interface MemoryContainer {
  /** Its id (64 hex digits, as Docker's). */
  readonly id: string;
  /** How it was started. */
  readonly spec: ContainerSpec;
  /** `running`, `exited` (stopped or died; files kept) or `removed`. */
  state: "running" | "exited" | "removed";
  /** Its files: the image's, and whatever was copied in or a handler wrote. */
  readonly files: MemoryFiles;
}

/** What an exec handler is asked. */
export interface ExecRequest {
  /** The container the command runs in. */
  container: MemoryContainer;
  /** The script (for `unpackAndExec`, the command run after unpacking). */
  script: string;
  /** The options as given. */
  options: ExecOptions;
  /** Who runs it (the default {@linkcode AGENT_USER} filled in). */
  user: string;
  /** Where (the container's workdir filled in). */
  workdir: string;
  /** For `unpackAndExec`: the tar, already unpacked into `workdir`. */
  unpacked?: Uint8Array;
}

/** What a container handle asks of its sandbox. */
export interface MemoryEngine {
  /** The files of an image, or undefined when it does not exist. */
  image(name: string): MemoryFiles | undefined;
  /** Records an operation on a container; the container, or undefined when it is gone. */
  operate(operation: SandboxOperation & { id: string }): Promise<MemoryContainer | undefined>;
  /** Asks the test's handler, honouring the abort signal. */
  answer(request: ExecRequest): Promise<UnpackedExecResult>;
}

/** A handle on a memory container, as `start` and `adopt` give one. */
export class MemoryContainerHandle implements SandboxContainer {
  readonly #engine: MemoryEngine;
  readonly id: string;
  readonly spec: ContainerSpec;
  readonly channelLost: string | undefined = undefined;

  constructor(engine: MemoryEngine, id: string, spec: ContainerSpec) {
    this.#engine = engine;
    this.id = id;
    this.spec = spec;
  }

  async exec(script: string, options: ExecOptions): Promise<ExecResult> {
    const { unpacked: _unpacked, ...result } = await this.#run(script, options);
    return result;
  }

  async unpackAndExec(
    tar: Uint8Array | Promise<LaterInput>,
    command: string,
    options: UnpackExecOptions,
  ): Promise<UnpackedExecResult> {
    const { report, ...execOptions } = options;
    return await this.#run(command, execOptions, tar, report);
  }

  async copyIn(tar: Uint8Array, destination: string): Promise<void> {
    const container = await this.#engine.operate({ op: "copyIn", id: this.id, destination });
    const failed = (detail: string) =>
      new InfrastructureError(`could not copy files into the container: ${detail}`);
    if (container === undefined) throw failed(this.#gone());
    if (container.files.get(destination)?.type !== "dir") throw failed(this.#notFound(destination));
    container.files.unpack(tar, destination);
  }

  async copyOut(
    path: string,
    admit?: (entry: TarEntryHeader) => void,
    _timeoutMs?: number,
  ): Promise<TarEntry[]> {
    const container = await this.#engine.operate({ op: "copyOut", id: this.id, path });
    const failed = (detail: string) =>
      new InfrastructureError(`could not copy ${path} out of the container: ${detail}`);
    if (container === undefined) throw failed(this.#gone());
    if (container.files.get(path) === undefined) throw failed(this.#notFound(path));
    return await readTarStream(ReadableStream.from([container.files.pack(path)]), admit);
  }

  async killAndArchive(
    whole: readonly string[],
    alone: readonly string[],
    admit?: (entry: TarEntryHeader) => void,
    _timeoutMs?: number,
  ): Promise<TarEntry[]> {
    const paths = [...whole, ...alone];
    const container = await this.#engine.operate({ op: "copyOut", id: this.id, path: "/" });
    const failed = (detail: string) =>
      new InfrastructureError(`could not copy ${paths.length} paths out: ${detail}`);
    if (container === undefined) throw failed(this.#gone());
    if (container.state !== "running") throw failed(`container ${this.id} is not running`);
    const entries: TarEntry[] = [];
    for (const path of paths) {
      if (container.files.get(path) === undefined) throw failed(this.#notFound(path));
      const parent = path.slice(0, path.lastIndexOf("/")).replace(/^\//, "");
      const packed = await readTarStream(ReadableStream.from([container.files.pack(path)]), admit);
      // Alone: the path's own entry, not what a folder holds.
      const own = alone.includes(path) ? packed.filter((e) => !e.path.includes("/")) : packed;
      entries.push(
        ...own.map((entry) => ({
          ...entry,
          path: parent ? `${parent}/${entry.path}` : entry.path,
        })),
      );
    }
    return entries;
  }

  /** See {@linkcode SandboxContainer.attach}: a memory container runs no programs. */
  attach(argv: readonly string[]): AttachedProcess {
    throw new InfrastructureError(
      `the memory sandbox runs no programs, so it cannot start ${argv[0]} with its streams`,
    );
  }

  /** See {@linkcode SandboxContainer.installHelper}: a memory container runs no binaries. */
  installHelper(): Promise<string | undefined> {
    return Promise.resolve(undefined);
  }

  async changes(): Promise<FilesystemChange[]> {
    const container = await this.#engine.operate({ op: "changes", id: this.id });
    if (container === undefined) {
      throw new InfrastructureError(`could not list the changes of a container: ${this.#gone()}`);
    }
    const image = this.#engine.image(this.spec.image) ?? new MemoryFiles();
    const now = container.files.paths("/");
    const before = new Set(image.paths("/"));
    const changes: FilesystemChange[] = [];
    for (const path of now) {
      const node = container.files.get(path)!;
      const old = image.get(path);
      if (old === undefined) changes.push({ kind: "added", path });
      else if (!sameNode(old, node)) changes.push({ kind: "changed", path });
      before.delete(path);
    }
    for (const path of before) changes.push({ kind: "deleted", path });
    return changes;
  }

  async stop(): Promise<void> {
    const container = await this.#engine.operate({ op: "stop", id: this.id });
    if (container === undefined) {
      throw new InfrastructureError(
        `could not stop container ${this.id.slice(0, 12)}: ${this.#gone()}`,
      );
    }
    container.state = "exited";
  }

  async remove(): Promise<void> {
    const container = await this.#engine.operate({ op: "remove", id: this.id });
    if (container) container.state = "removed";
  }

  async #run(
    script: string,
    given: ExecOptions,
    later?: Uint8Array | Promise<LaterInput>,
    report?: UnpackExecOptions["report"],
  ): Promise<UnpackedExecResult> {
    let options = given;
    const user = options.user ?? this.spec.user ?? AGENT_USER;
    const workdir = options.workdir ?? this.spec.workdir;
    const container = await this.#engine.operate({
      op: "exec",
      id: this.id,
      script,
      user,
      workdir,
      unpack: later !== undefined,
    });
    const failed = (detail: string) =>
      new InfrastructureError(
        `could not run a command in container ${this.id.slice(0, 12)}: ${detail}`,
      );
    if (container === undefined) throw failed(this.#gone());
    if (container.state !== "running") throw failed(`container ${this.id} is not running`);
    // A tar that comes later: the exec began above; the command runs once it arrives.
    let unpack = later instanceof Promise ? undefined : later;
    if (later instanceof Promise) {
      const input = await later;
      options.signal?.throwIfAborted();
      if (container.state !== "running") throw failed(`container ${this.id} is not running`);
      unpack = input.stdin;
      options = { ...options, timeoutMs: input.timeoutMs };
    }
    if (unpack !== undefined) container.files.unpack(unpack, workdir);
    const result = await this.#engine.answer({
      container,
      script,
      options,
      user,
      workdir,
      ...(unpack !== undefined ? { unpacked: unpack } : {}),
    });
    if (report === undefined || !result.unpacked) return result;
    // As the docker container does it: the command's stdout joins its stderr; stdout is the file.
    const node = container.files.get(report.path);
    const read = node?.type === "file" && node.data.length <= report.maxBytes
      ? new TextDecoder().decode(node.data)
      : undefined;
    return {
      ...result,
      stdout: "",
      stderr: `${result.stdout}${result.stderr}`,
      ...(read === undefined ? {} : { report: read }),
    };
  }

  #gone(): string {
    return `No such container: ${this.id}`;
  }

  #notFound(path: string): string {
    return `Could not find the file ${path} in container ${this.id}`;
  }
}

function sameNode(a: MemoryNode, b: MemoryNode): boolean {
  if (a.type !== b.type) return false;
  if (a.type === "symlink") return a.target === (b as typeof a).target;
  if (a.mode !== (b as typeof a).mode) return false;
  if (a.type === "dir") return true;
  const data = (b as typeof a).data;
  return a.data.length === data.length && a.data.every((byte, index) => byte === data[index]);
}
