/**
 * The container engine as Verdict drives it: the {@linkcode Sandbox} seam's containers, commands,
 * images and tar streams. For a program that drives an engine, or implements one of its own; the
 * Docker one (`DockerSandbox`) and the `Sandbox` interface are in the main module.
 *
 * @example A command in a container of the engine in memory
 * ```ts
 * import assert from "node:assert/strict";
 * import { AGENT_USER, type ContainerSpec } from "./sandbox.ts";
 * import { MemorySandbox } from "./testing.ts";
 * const spec: ContainerSpec = {
 *   image: "verdict/busybox", workdir: "/workspace", network: "none", labels: {}, user: AGENT_USER,
 * };
 * const container = await new MemorySandbox().start(spec);
 * assert.equal((await container.exec("true", { timeoutMs: 1000 })).exitCode, 0);
 * ```
 *
 * @module
 */
export {
  AGENT_USER,
  type AttachedProcess,
  type BindMount,
  type ContainerSpec,
  type DerivedImageOptions,
  type DerivedImageSource,
  type ExecOptions,
  type ExecResult,
  type FilesystemChange,
  type ImageBuild,
  type ImageBuildResult,
  type ImageConfig,
  type LabelledContainer,
  type LaterInput,
  type ResourceLimits,
  type SandboxContainer,
  type UnpackedExecResult,
  type UnpackExecOptions,
} from "./src/engine/sandbox.ts";
export type { TarEntry, TarEntryHeader } from "./src/engine/tar.ts";
export type { DockerCallOptions, DockerResult } from "./src/engine/docker.ts";
