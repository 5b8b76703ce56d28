/**
 * A Harbor task's environment image, made ready before its trials: `environment/Dockerfile` is
 * built offline under `[environment].build_timeout_sec`, content-named (the tag the loader derived
 * from `environment/`'s bytes), so a cached build is reused and a changed environment gets a new
 * one; `[environment].docker_image` is used as it is, never pulled. Then the image's `WORKDIR`
 * becomes the task's workdir. A base image the engine lacks is named before any build, with how
 * to provide it.
 *
 * @module
 */
import { join } from "node:path";
import { InfrastructureError, InputError, type InputProblem } from "../../core/errors.ts";
import type { ImageConfig, Sandbox } from "../../engine/sandbox.ts";
import type { HarborSettings, Task } from "../../task/task.ts";

/** The label every environment image Verdict builds carries (its value: the task's id). */
export const HARBOR_IMAGE_LABEL = "verdict.harbor-task";

/** A Harbor task's image, made ready. */
export interface ReadyImage {
  /** The task, with its image's `WORKDIR` as its workdir. */
  task: Task;
  /** The build's log; null when the image was already there. */
  buildLog: string | null;
}

/**
 * Makes every Harbor task's image ready and resolves its workdir; other tasks pass through.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MemorySandbox } from "../../engine/memory_sandbox.ts";
 * import { loadTask } from "../../task/load_task.ts";
 * import { readyHarborImages } from "./harbor_images.ts";
 * const task = await loadTask("tasks/fix-slugify"); // a Verdict task: nothing to do
 * const [ready] = await readyHarborImages([task], new MemorySandbox());
 * assert.equal(ready.task, task);
 * ```
 * @throws {InputError} when a Dockerfile's base image is missing or its build fails (exit 2).
 * @throws {InfrastructureError} when a `docker_image` is missing or the engine fails (exit 3).
 */
export async function readyHarborImages(
  tasks: readonly Task[],
  sandbox: Sandbox,
  signal?: AbortSignal,
): Promise<ReadyImage[]> {
  const problems: InputProblem[] = [];
  const ready: ReadyImage[] = [];
  for (const task of tasks) {
    if (!task.harbor) {
      ready.push({ task, buildLog: null });
      continue;
    }
    try {
      ready.push(await readyImage(task, task.harbor, sandbox, signal));
    } catch (error) {
      if (error instanceof InputError) problems.push(...error.problems);
      else throw error;
    }
  }
  if (problems.length > 0) throw new InputError(problems);
  return ready;
}

async function readyImage(
  task: Task,
  harbor: HarborSettings,
  sandbox: Sandbox,
  signal?: AbortSignal,
): Promise<ReadyImage> {
  const image = task.manifest.image;
  let config = await sandbox.imageConfig(image, signal);
  let buildLog: string | null = null;
  const { dockerfile } = harbor.environment;
  if (config === null && (harbor.environment.dockerImage !== null || dockerfile === null)) {
    throw new InfrastructureError(
      `image ${image} (${join(task.dir, "task.toml")}, environment.docker_image) is not in the ` +
        `local Docker engine, and Verdict never pulls: load it (docker load -i FILE) or build it`,
    );
  }
  if (config === null && dockerfile !== null) {
    await requireBaseImages(dockerfile, sandbox, signal);
    const build = await sandbox.buildImage({
      context: join(task.dir, "environment"),
      dockerfile,
      tag: image,
      labels: { [HARBOR_IMAGE_LABEL]: task.id },
      timeoutMs: harbor.environment.buildTimeoutSec * 1000,
      signal,
    });
    if (signal?.aborted) throw signal.reason;
    buildLog = build.log;
    if (!build.built) {
      throw new InputError({
        file: dockerfile,
        field: "",
        problem: build.timedOut
          ? `docker build ran past environment.build_timeout_sec ` +
            `(${harbor.environment.buildTimeoutSec} s) and was stopped`
          : `docker build failed: ${lastLines(build.log, 6)}`,
        fix: build.timedOut
          ? "raise [environment].build_timeout_sec in task.toml, or make the build faster"
          : "fix the Dockerfile; it is built with no network, so every step must work offline",
      });
    }
    config = await sandbox.imageConfig(image, signal);
    if (config === null) throw new InfrastructureError(`docker built ${image}, then lost it`);
  }
  return { task: withWorkdir(task, config!), buildLog };
}

function withWorkdir(task: Task, config: ImageConfig): Task {
  return { ...task, manifest: { ...task.manifest, workdir: config.workdir } };
}

/**
 * The images a Dockerfile's `FROM` lines name, less its own stages and `scratch`, with their
 * lines; a name built from `ARG`s is left to the build.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { baseImages } from "./harbor_images.ts";
 * assert.deepEqual(
 *   baseImages("FROM verdict/python:3.11 AS build\nRUN x\nFROM build\nFROM --platform=linux/amd64 scratch\n"),
 *   [{ image: "verdict/python:3.11", line: 1 }],
 * );
 * ```
 */
export function baseImages(dockerfile: string): { image: string; line: number }[] {
  const stages = new Set<string>();
  const images: { image: string; line: number }[] = [];
  dockerfile.split("\n").forEach((text, index) => {
    const words = text.trim().split(/\s+/);
    if (words[0]?.toUpperCase() !== "FROM") return;
    const args = words.slice(1).filter((word) => !word.startsWith("--"));
    const [image, as, name] = args;
    if (image === undefined) return;
    if (as?.toUpperCase() === "AS" && name) stages.add(name.toLowerCase());
    if (image.includes("$") || image === "scratch" || stages.has(image.toLowerCase())) return;
    images.push({ image, line: index + 1 });
  });
  return images;
}

async function requireBaseImages(
  dockerfile: string,
  sandbox: Sandbox,
  signal?: AbortSignal,
): Promise<void> {
  const problems: InputProblem[] = [];
  for (const { image, line } of baseImages(await Deno.readTextFile(dockerfile))) {
    if (await sandbox.hasImage(image, signal)) continue;
    problems.push({
      file: dockerfile,
      field: `FROM (line ${line})`,
      problem: `base image ${image} is not in the local Docker engine, and Verdict builds offline`,
      fix: `provide it first: docker load -i FILE (an image saved with docker save), ` +
        `docker tag ANOTHER ${image}, or scripts/build-images.sh for verdict/python:3.11 and ` +
        `verdict/busybox; or change FROM to an image you have`,
    });
  }
  if (problems.length > 0) throw new InputError(problems);
}

function lastLines(text: string, count: number): string {
  return text.trim().split("\n").slice(-count).join(" | ");
}
