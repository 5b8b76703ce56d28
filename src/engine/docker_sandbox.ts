/**
 * The {@linkcode Sandbox} the product runs on: the Docker CLI, through `startContainer`,
 * `Container`, `findLabelled`, `removeContainers` and `DerivedImages`.
 *
 * @module
 */
import { copyImage } from "./copy_image.ts";
import { InfrastructureError } from "../core/errors.ts";
import { Container, findLabelled, removeContainers, startContainer } from "./container.ts";
import { DerivedImages } from "./derived_image.ts";
import type { Docker } from "./docker.ts";
import { buildImage, imageConfig } from "./image_build.ts";
import type {
  ContainerSpec,
  DerivedImageSource,
  ImageBuild,
  ImageBuildResult,
  ImageConfig,
  LabelledContainer,
  Sandbox,
  SandboxContainer,
} from "./sandbox.ts";

/**
 * Containers run by a Docker engine.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Docker } from "./docker.ts";
 * import { DockerSandbox } from "./docker_sandbox.ts";
 * const sandbox = new DockerSandbox(new Docker({ PATH: "/usr/bin:/bin" }));
 * assert.equal(await sandbox.hasImage("verdict/no-such-image"), false);
 * ```
 */
export class DockerSandbox implements Sandbox {
  /** The docker CLI every call goes through. */
  readonly docker: Docker;

  /** Drives the engine `docker` talks to. */
  constructor(docker: Docker) {
    this.docker = docker;
  }

  /** See {@linkcode Sandbox.ping}. */
  ping(signal?: AbortSignal): Promise<string> {
    return this.docker.ping(signal);
  }

  /** See {@linkcode Sandbox.hasImage}. */
  hasImage(image: string, signal?: AbortSignal): Promise<boolean> {
    return this.docker.hasImage(image, signal);
  }

  /** See {@linkcode Sandbox.imageConfig}. */
  imageConfig(image: string, signal?: AbortSignal): Promise<ImageConfig | null> {
    return imageConfig(this.docker, image, signal);
  }

  /** See {@linkcode Sandbox.buildImage}. */
  buildImage(build: ImageBuild): Promise<ImageBuildResult> {
    return buildImage(this.docker, build);
  }

  /** See {@linkcode Sandbox.start}. */
  start(spec: ContainerSpec, signal?: AbortSignal): Promise<SandboxContainer> {
    return startContainer(this.docker, spec, signal);
  }

  /** See {@linkcode Sandbox.adopt}. */
  adopt(id: string, spec: ContainerSpec): SandboxContainer {
    return new Container(this.docker, id, spec);
  }

  /** See {@linkcode Sandbox.findLabelled}. */
  findLabelled(
    filters: readonly string[],
    keys: readonly string[] = [],
  ): Promise<LabelledContainer[]> {
    return findLabelled(this.docker, filters, keys);
  }

  /** See {@linkcode Sandbox.removeContainers}. */
  removeContainers(ids: readonly string[]): Promise<void> {
    return removeContainers(this.docker, ids);
  }

  /** See {@linkcode Sandbox.derivedImages}. */
  derivedImages(labels: Record<string, string>): DerivedImageSource {
    return new DerivedImages(this.docker, labels);
  }

  /** See {@linkcode Sandbox.sendImage}. */
  sendImage(image: string, to: Sandbox, signal?: AbortSignal): Promise<string> {
    if (!(to instanceof DockerSandbox)) {
      return Promise.reject(new InfrastructureError(`cannot send ${image} to a non-Docker engine`));
    }
    return copyImage(this.docker, to.docker, image, signal);
  }
}
