/**
 * A run over several engines (`--engine`) readies each: it answers, and every task image is on it
 * before any trial, sent from an engine that has it (`docker save | docker load`, the same id on
 * both): a Harbor task's image once it is built on the first engine, and an installed agent's
 * sidecar image.
 *
 * @module
 */
import { InfrastructureError } from "../../core/errors.ts";
import { SIDECAR_IMAGE } from "../../gateway/sidecar.ts";
import type { Sandbox } from "../../engine/sandbox.ts";
import { missingImageMessage } from "../../engine/image_messages.ts";
import { type Task, tasksByImage } from "../../task/task.ts";
import type { RunEngine } from "./engine_seats.ts";
import { removeLeftovers } from "./run_lock.ts";

/**
 * Pings every engine, then sends each of `images` to the engines that lack it, from one that has
 * it; an image no engine has is left for the run's image check to name. Engines that already hold
 * an image must hold the same one (the same id): a trial would otherwise see another image
 * depending on where it runs.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MemorySandbox } from "../../engine/memory_sandbox.ts";
 * import { readyEngines } from "./engine_images.ts";
 * const a = new MemorySandbox({ images: { "verdict/busybox": [] } });
 * const b = new MemorySandbox({ images: {} });
 * const engines = [{ name: "a", slots: 1, sandbox: a }, { name: "b", slots: 1, sandbox: b }];
 * await readyEngines(engines, ["verdict/busybox"], new AbortController().signal);
 * assert(await b.hasImage("verdict/busybox"));
 * ```
 * @throws {InfrastructureError} naming the image and two engines whose copies differ (exit 3).
 */
export async function readyEngines(
  engines: readonly RunEngine[],
  images: readonly string[],
  signal: AbortSignal,
): Promise<void> {
  await Promise.all(engines.map(({ sandbox }) => sandbox.ping(signal)));
  for (const image of images) {
    const ids = await Promise.all(
      engines.map(async ({ sandbox }) => (await sandbox.imageConfig(image, signal))?.id),
    );
    const source = ids.findIndex((id) => id !== undefined);
    if (source === -1) continue;
    const other = ids.findIndex((id) => id !== undefined && id !== ids[source]);
    if (other !== -1) {
      throw new InfrastructureError(
        `${image} differs between engines: ${engines[source].name} has ${ids[source]}, ` +
          `${engines[other].name} has ${ids[other]}; a trial would see another image depending ` +
          `on where it runs. Fix: remove it on one of them (Verdict sends it over) or build the ` +
          `images again on both`,
      );
    }
    await Promise.all(
      engines.filter((_, index) => ids[index] === undefined).map(({ sandbox }) =>
        engines[source].sandbox.sendImage(image, sandbox, signal)
      ),
    );
  }
}

/**
 * Readies a run's engines for `tasks`: each answers, and holds every image the tasks need (and,
 * with `sidecar`, an installed agent's sidecar image), sent from an engine that has it
 * ({@linkcode readyEngines}).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MemorySandbox } from "../../engine/memory_sandbox.ts";
 * import { readyEngineImages } from "./engine_images.ts";
 * const a = new MemorySandbox({ images: { "verdict/python:3.11": [] } });
 * const b = new MemorySandbox({ images: {} });
 * const engines = [{ name: "a", slots: 1, sandbox: a }, { name: "b", slots: 1, sandbox: b }];
 * await readyEngineImages(engines, [], true, new AbortController().signal);
 * assert(await b.hasImage("verdict/python:3.11"));
 * ```
 * @throws {InfrastructureError} naming an engine that does not answer, or an image two engines
 * hold in different versions (exit 3).
 */
export async function readyEngineImages(
  engines: readonly RunEngine[],
  tasks: readonly Task[],
  sidecar: boolean,
  signal: AbortSignal,
): Promise<void> {
  const images = [...tasksByImage(tasks).keys(), ...(sidecar ? [SIDECAR_IMAGE] : [])];
  await readyEngines(engines, images, signal);
}

/**
 * The Harbor tasks of `tasks`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { harborTasks } from "./engine_images.ts";
 * assert.deepEqual(harborTasks([]), []);
 * ```
 */
export function harborTasks(tasks: readonly Task[]): Task[] {
  return tasks.filter((task) => task.harbor);
}

/**
 * Refuses a run when a Verdict task's image is missing on any of its engines (Harbor tasks' images
 * are built for the run, not looked for).
 *
 * @example
 * ```ts
 * import { MemorySandbox } from "../../engine/memory_sandbox.ts";
 * import { requireTaskImages } from "./engine_images.ts";
 * await requireTaskImages([new MemorySandbox()], [], new AbortController().signal);
 * ```
 * @throws {InfrastructureError} naming each missing image, the tasks that need it, and how to build
 * it (exit 3).
 */
export async function requireTaskImages(
  sandboxes: readonly Sandbox[],
  tasks: readonly Task[],
  signal: AbortSignal,
): Promise<void> {
  const missing: string[] = [];
  for (const sandbox of sandboxes) {
    for (const [image, ids] of tasksByImage(tasks.filter((task) => !task.harbor))) {
      if (!await sandbox.hasImage(image, signal)) {
        missing.push(`${missingImageMessage(image)} (needed by ${ids.join(", ")})`);
      }
    }
  }
  if (missing.length > 0) throw new InfrastructureError([...new Set(missing)].join("\n"));
}

/**
 * Removes, on every engine, the containers of this state folder's runs that no process holds;
 * returns those runs' ids (`removeLeftovers`, once per engine).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MemorySandbox } from "../../engine/memory_sandbox.ts";
 * import { removeEveryLeftover } from "./engine_images.ts";
 * assert.deepEqual(await removeEveryLeftover([new MemorySandbox()], "/nowhere/runs", "owner"), []);
 * ```
 */
export async function removeEveryLeftover(
  sandboxes: readonly Sandbox[],
  runsDir: string,
  owner: string,
): Promise<string[]> {
  const cleaned = await Promise.all(
    sandboxes.map((sandbox) => removeLeftovers(sandbox, runsDir, owner)),
  );
  return [...new Set(cleaned.flat())];
}
