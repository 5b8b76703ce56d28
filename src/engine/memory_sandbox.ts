/**
 * A {@linkcode Sandbox} held in memory, for unit tests of the core: containers keep a file tree,
 * labels and a state as Docker keeps them (a stopped container still copies out; a removed one
 * fails every operation but `remove`), commands are answered by a handler the test gives, every
 * operation is recorded, and a test can make any operation fail or a container die.
 *
 * @module
 */
import { InfrastructureError } from "../core/errors.ts";
import { sha256Hex } from "../core/hash.ts";
import { MemoryFiles, type MemoryNode } from "./memory_files.ts";
import {
  AGENT_USER,
  type ContainerSpec,
  type DerivedImageOptions,
  type DerivedImageSource,
  type ExecOptions,
  type ExecResult,
  type FilesystemChange,
  folderNotEmptyMessage,
  type ImageBuild,
  type ImageBuildResult,
  type ImageConfig,
  type LabelledContainer,
  missingImageMessage,
  type Sandbox,
  type SandboxContainer,
  type UnpackedExecResult,
} from "./sandbox.ts";
import { readTarStream, type TarEntry, type TarEntryHeader } from "./tar.ts";

/** One operation asked of the sandbox, in the order asked. */
export type SandboxOperation =
  | { op: "ping" }
  | { op: "hasImage"; image: string }
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

/**
 * Answers a command: any field left out takes its default (exit 0, empty output, not timed out,
 * not aborted; for `unpackAndExec`, unpacked). Throw to make the exec itself fail (say with an
 * `InfrastructureError`, as a container the engine lost does).
 */
export type ExecHandler = (
  request: ExecRequest,
) => Partial<UnpackedExecResult> | void | Promise<Partial<UnpackedExecResult> | void>;

/** How a memory sandbox behaves. */
export interface MemorySandboxOptions {
  /**
   * The images that exist, each with its files (paths relative to `/`). Omitted: every image
   * exists, empty.
   */
  images?: Record<string, readonly TarEntry[]>;
  /** Answers every command. Default: exit 0, empty output. */
  exec?: ExecHandler;
  /**
   * Called with each operation once it is recorded, before it acts: what it throws (or rejects
   * with) is what the operation throws, and the operation does nothing.
   */
  fault?: (operation: SandboxOperation) => void | Promise<void>;
}

/** What a container handle asks of its sandbox. */
interface Engine {
  /** The files of an image, or undefined when it does not exist. */
  image(name: string): MemoryFiles | undefined;
  /** Records an operation on a container; the container, or undefined when it is gone. */
  operate(operation: SandboxOperation & { id: string }): Promise<MemoryContainer | undefined>;
  /** Asks the test's handler, honouring the abort signal. */
  answer(request: ExecRequest): Promise<UnpackedExecResult>;
}

/**
 * An engine in memory.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MemorySandbox } from "./memory_sandbox.ts";
 * const sandbox = new MemorySandbox({
 *   exec: ({ script, container }) =>
 *     script === "cat a.txt" ? { stdout: container.files.text("/workspace/a.txt") } : { exitCode: 127 },
 * });
 * const container = await sandbox.start({
 *   image: "verdict/busybox", workdir: "/workspace", network: "none", labels: {},
 * });
 * sandbox.container(container.id)!.files.write("/workspace/a.txt", "hi\n");
 * assert((await container.exec("cat a.txt", { timeoutMs: 1000 })).stdout === "hi\n");
 * await container.remove();
 * assert(sandbox.live().length === 0);
 * ```
 */
export class MemorySandbox implements Sandbox {
  readonly #operations: SandboxOperation[] = [];
  readonly #containers = new Map<string, MemoryContainer>();
  readonly #images: Map<string, MemoryFiles> | undefined;
  readonly #exec: ExecHandler;
  readonly #fault: (operation: SandboxOperation) => void | Promise<void>;
  readonly #derived = new Map<string, MemoryFiles>();
  readonly #engine: Engine = {
    image: (name) => this.#image(name),
    operate: (operation) => this.#operate(operation),
    answer: (request) => this.#answer(request),
  };

  /** Makes an engine with no containers. */
  constructor(options: MemorySandboxOptions = {}) {
    this.#images = options.images &&
      new Map(Object.entries(options.images).map(([name, entries]) => [name, tree(entries)]));
    this.#exec = options.exec ?? (() => {});
    this.#fault = options.fault ?? (() => {});
  }

  /** Every operation asked so far, in order. */
  get operations(): readonly SandboxOperation[] {
    return this.#operations;
  }

  /** A container by id, in whatever state, or undefined when none was ever started with it. */
  container(id: string): MemoryContainer | undefined {
    return this.#containers.get(id);
  }

  /** Every container ever started, oldest first. */
  containers(): MemoryContainer[] {
    return [...this.#containers.values()];
  }

  /** The containers not removed, oldest first. */
  live(): MemoryContainer[] {
    return this.containers().filter((container) => container.state !== "removed");
  }

  /** Makes a container exit by itself (its processes die, its files stay), as an OOM kill does. */
  die(id: string): void {
    const container = this.#containers.get(id);
    if (container?.state === "running") container.state = "exited";
  }

  /** Makes a container disappear, as a `docker rm` by someone else does. */
  vanish(id: string): void {
    const container = this.#containers.get(id);
    if (container) container.state = "removed";
  }

  /** See {@linkcode Sandbox.ping}. */
  async ping(_signal?: AbortSignal): Promise<string> {
    await this.#record({ op: "ping" });
    return "memory";
  }

  /** See {@linkcode Sandbox.hasImage}. */
  async hasImage(image: string, _signal?: AbortSignal): Promise<boolean> {
    await this.#record({ op: "hasImage", image });
    return this.#image(image) !== undefined;
  }

  /** See {@linkcode Sandbox.imageConfig}: a memory image has no `WORKDIR` nor `ENV`. */
  async imageConfig(image: string, _signal?: AbortSignal): Promise<ImageConfig | null> {
    await this.#record({ op: "imageConfig", image });
    return this.#image(image) === undefined ? null : { id: image, workdir: "/", env: [] };
  }

  /** See {@linkcode Sandbox.buildImage}: the image is made empty; nothing is read. */
  async buildImage(build: ImageBuild): Promise<ImageBuildResult> {
    await this.#record({ op: "buildImage", tag: build.tag });
    this.#derived.set(build.tag, new MemoryFiles());
    return { built: true, timedOut: false, log: "" };
  }

  /** See {@linkcode Sandbox.start}. */
  async start(spec: ContainerSpec, signal?: AbortSignal): Promise<SandboxContainer> {
    await this.#record({ op: "start", spec });
    if (signal?.aborted) {
      throw new InfrastructureError(`could not start a container from ${spec.image}: aborted`);
    }
    const image = this.#image(spec.image);
    if (image === undefined) throw new InfrastructureError(missingImageMessage(spec.image));
    const files = image.clone();
    if (files.get(spec.workdir)?.type !== "dir") files.mkdir(spec.workdir);
    const id = sha256Hex(`memory-container/${this.#containers.size}`);
    this.#containers.set(id, { id, spec, state: "running", files });
    return new MemoryContainerHandle(this.#engine, id, spec);
  }

  /** See {@linkcode Sandbox.adopt}. */
  adopt(id: string, spec: ContainerSpec): SandboxContainer {
    this.#operations.push({ op: "adopt", id });
    return new MemoryContainerHandle(this.#engine, id, spec);
  }

  /** See {@linkcode Sandbox.findLabelled}. */
  async findLabelled(
    filters: readonly string[],
    keys: readonly string[] = [],
  ): Promise<LabelledContainer[]> {
    await this.#record({ op: "findLabelled", filters });
    const wanted = filters.map((filter) => {
      const equals = filter.indexOf("=");
      return equals === -1
        ? { key: filter, value: undefined }
        : { key: filter.slice(0, equals), value: filter.slice(equals + 1) };
    });
    return this.live().reverse()
      .filter(({ spec }) =>
        wanted.every(({ key, value }) =>
          key in spec.labels && (value === undefined || spec.labels[key] === value)
        )
      )
      .map(({ id, state, spec }) => ({
        id,
        state,
        labels: Object.fromEntries(keys.map((key) => [key, spec.labels[key] ?? ""])),
      }));
  }

  /** See {@linkcode Sandbox.removeContainers}. */
  async removeContainers(ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.#record({ op: "removeContainers", ids: [...ids] });
    for (const id of ids) this.vanish(id);
  }

  /** See {@linkcode Sandbox.derivedImages}. */
  derivedImages(labels: Record<string, string>): DerivedImageSource {
    return {
      imageFor: async (base: string, tar: Uint8Array, options: DerivedImageOptions = {}) => {
        const { emptyFolder } = options;
        await this.#record({ op: "imageFor", base, labels, emptyFolder });
        const image = this.#image(base);
        if (image === undefined) throw new InfrastructureError(missingImageMessage(base));
        if (emptyFolder !== undefined) {
          const inside = image.paths(emptyFolder).map((path) => path.slice(1));
          if (inside.length > 0) {
            throw new InfrastructureError(folderNotEmptyMessage(base, emptyFolder, inside));
          }
        }
        const name = `verdict-derived:${sha256Hex(`${base}\n${sha256Hex(tar)}`).slice(0, 32)}`;
        const derived = image.clone();
        derived.unpack(tar, "/");
        this.#derived.set(name, derived);
        return name;
      },
    };
  }

  #image(name: string): MemoryFiles | undefined {
    return this.#derived.get(name) ??
      (this.#images === undefined ? new MemoryFiles() : this.#images.get(name));
  }

  async #record(operation: SandboxOperation): Promise<void> {
    this.#operations.push(operation);
    await this.#fault(operation);
  }

  async #operate(operation: SandboxOperation & { id: string }) {
    await this.#record(operation);
    const container = this.#containers.get(operation.id);
    return container?.state === "removed" ? undefined : container;
  }

  async #answer(request: ExecRequest): Promise<UnpackedExecResult> {
    const { signal } = request.options;
    const unpacked = request.unpacked !== undefined;
    const killed = { exitCode: 137, stdout: "", stderr: "", timedOut: false, aborted: true };
    if (signal?.aborted) return { ...killed, unpacked };
    let onAbort = () => {};
    const aborted = new Promise<undefined>((resolve) => {
      onAbort = () => resolve(undefined);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
    try {
      const answered = await Promise.race([this.#exec(request), aborted]);
      if (signal?.aborted) return { ...killed, unpacked };
      return {
        exitCode: 0,
        stdout: "",
        stderr: "",
        timedOut: false,
        aborted: false,
        unpacked,
        ...(answered ?? {}),
      };
    } finally {
      signal?.removeEventListener("abort", onAbort);
    }
  }
}

/** A handle on a memory container, as `start` and `adopt` give one. */
class MemoryContainerHandle implements SandboxContainer {
  readonly #engine: Engine;
  readonly id: string;
  readonly spec: ContainerSpec;
  readonly channelLost: string | undefined = undefined;

  constructor(engine: Engine, id: string, spec: ContainerSpec) {
    this.#engine = engine;
    this.id = id;
    this.spec = spec;
  }

  async exec(script: string, options: ExecOptions): Promise<ExecResult> {
    const { unpacked: _unpacked, ...result } = await this.#run(script, options);
    return result;
  }

  unpackAndExec(
    tar: Uint8Array,
    command: string,
    options: Omit<ExecOptions, "stdin">,
  ): Promise<UnpackedExecResult> {
    return this.#run(command, options, tar);
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
    options: ExecOptions,
    unpack?: Uint8Array,
  ): Promise<UnpackedExecResult> {
    const user = options.user ?? this.spec.user ?? AGENT_USER;
    const workdir = options.workdir ?? this.spec.workdir;
    const container = await this.#engine.operate({
      op: "exec",
      id: this.id,
      script,
      user,
      workdir,
      unpack: unpack !== undefined,
    });
    const failed = (detail: string) =>
      new InfrastructureError(
        `could not run a command in container ${this.id.slice(0, 12)}: ${detail}`,
      );
    if (container === undefined) throw failed(this.#gone());
    if (container.state !== "running") throw failed(`container ${this.id} is not running`);
    if (unpack !== undefined) container.files.unpack(unpack, workdir);
    return await this.#engine.answer({
      container,
      script,
      options,
      user,
      workdir,
      ...(unpack !== undefined ? { unpacked: unpack } : {}),
    });
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

function tree(entries: readonly TarEntry[]): MemoryFiles {
  const files = new MemoryFiles();
  for (const entry of entries) {
    const path = `/${entry.path.replace(/^\/+/, "")}`;
    if (entry.type === "file") files.write(path, entry.data, entry.mode);
    else if (entry.type === "dir") files.mkdir(path, entry.mode);
    else if (entry.type === "symlink") files.symlink(path, entry.target);
  }
  return files;
}
