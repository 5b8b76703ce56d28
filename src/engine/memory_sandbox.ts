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
import {
  type ExecRequest,
  type MemoryContainer,
  MemoryContainerHandle,
  type MemoryEngine,
  type SandboxOperation,
} from "./_memory_container.ts";
import { MemoryFiles } from "./memory_files.ts";
import type {
  ContainerSpec,
  DerivedImageOptions,
  DerivedImageSource,
  ImageBuild,
  ImageBuildResult,
  ImageConfig,
  LabelledContainer,
  Sandbox,
  SandboxContainer,
  UnpackedExecResult,
} from "./sandbox.ts";
import { folderNotEmptyMessage, missingImageMessage } from "./image_messages.ts";
import type { TarEntry } from "./tar.ts";

export type { ExecRequest, MemoryContainer, SandboxOperation };

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
  readonly #engine: MemoryEngine = {
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

  /** See {@linkcode Sandbox.sendImage}: the image's files, to another memory engine. */
  async sendImage(image: string, to: Sandbox, _signal?: AbortSignal): Promise<string> {
    await this.#record({ op: "sendImage", image });
    const files = this.#image(image);
    if (files === undefined) throw new InfrastructureError(missingImageMessage(image));
    if (!(to instanceof MemorySandbox)) {
      throw new InfrastructureError(`cannot send ${image} to a non-memory engine`);
    }
    to.#images?.set(image, files);
    return image;
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
