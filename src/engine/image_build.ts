/**
 * Images a task's environment needs: an image's configuration (`docker image inspect`) and a build
 * from a Dockerfile (`docker build`), offline: its `RUN` steps get no network and nothing is
 * pulled that is not asked for.
 *
 * @module
 */
import { killQuietly } from "./_kill_quietly.ts";
import { InfrastructureError } from "../core/errors.ts";
import { BoundedBuffer } from "./_bounded_buffer.ts";
import { type Docker, firstLine } from "./docker.ts";
import type { ImageBuild, ImageBuildResult, ImageConfig } from "./sandbox.ts";

// A build log is kept with the run; its head and tail are what a reader needs.
const BUILD_LOG_BYTES = 1024 * 1024;

/**
 * A local image's configuration, or null when the engine does not have it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Docker } from "./docker.ts";
 * import { imageConfig } from "./image_build.ts";
 * const docker = new Docker({ PATH: "/usr/bin:/bin" });
 * assert.equal(await imageConfig(docker, "verdict/no-such-image"), null);
 * ```
 * @throws {InfrastructureError} when the engine answers with something unreadable.
 */
export async function imageConfig(
  docker: Docker,
  image: string,
  signal?: AbortSignal,
): Promise<ImageConfig | null> {
  const format = "{{json .Id}}\n{{json .Config.WorkingDir}}\n{{json .Config.Env}}";
  const result = await docker.run(["image", "inspect", "--format", format, image], { signal });
  if (result.code !== 0) return null;
  const text = new TextDecoder().decode(result.stdout).trim();
  try {
    const [id, workdir, env] = text.split("\n").map((line) => JSON.parse(line));
    return { id, workdir: workdir || "/", env: env ?? [] };
  } catch {
    throw new InfrastructureError(`docker image inspect ${image} printed ${firstLine(text)}`);
  }
}

/**
 * Builds an image from a Dockerfile with no network, removing its intermediate containers, under
 * a deadline.
 *
 * @example
 * ```ts ignore
 * import { Docker } from "./docker.ts";
 * import { buildImage } from "./image_build.ts";
 * const docker = new Docker({ PATH: "/usr/bin:/bin" });
 * const result = await buildImage(docker, {
 *   context: "env", dockerfile: "env/Dockerfile", tag: "my/image:1", labels: {}, timeoutMs: 600_000,
 * });
 * console.log(result.built, result.log);
 * ```
 */
export async function buildImage(docker: Docker, build: ImageBuild): Promise<ImageBuildResult> {
  const args = [
    "build",
    "--network=none",
    "--force-rm",
    "--file",
    build.dockerfile,
    "--tag",
    build.tag,
    ...Object.entries(build.labels).flatMap(([key, value]) => ["--label", `${key}=${value}`]),
    build.context,
  ];
  const child = docker.spawn(args, { signal: build.signal });
  const log = new BoundedBuffer(BUILD_LOG_BYTES);
  let timedOut = false;
  const deadline = setTimeout(() => {
    timedOut = true;
    killQuietly(child);
  }, build.timeoutMs);
  try {
    const [status] = await Promise.all([
      child.status,
      collect(child.stdout, log),
      collect(child.stderr, log),
    ]);
    return { built: status.success && !timedOut, timedOut, log: log.text() };
  } finally {
    clearTimeout(deadline);
  }
}

async function collect(stream: ReadableStream<Uint8Array>, into: BoundedBuffer): Promise<void> {
  for await (const chunk of stream) into.push(chunk);
}
