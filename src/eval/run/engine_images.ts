/**
 * A run over several engines (`--engine`) readies each: it answers, and every task image is on it
 * before any trial, sent from an engine that has it (`docker save | docker load`, the same id on
 * both). What only one engine can do yet is refused before anything is recorded.
 *
 * @module
 */
import { InfrastructureError, UsageError } from "../../core/errors.ts";
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
 * Refuses what a run over several engines cannot do yet: a Harbor task (its image is built on
 * one engine).
 *
 * @example
 * ```ts
 * import { requireEngineSupport } from "./engine_images.ts";
 * requireEngineSupport([]);
 * ```
 * @throws {UsageError} naming what to drop.
 */
export function requireEngineSupport(tasks: readonly Task[]): void {
  const harbor = tasks.filter((task) => task.harbor).map((task) => task.id);
  if (harbor.length > 0) {
    throw new UsageError(
      `--engine runs Verdict tasks so far; ${harbor.join(", ")} ${
        harbor.length === 1 ? "is a Harbor task" : "are Harbor tasks"
      } (its image is built on one engine). Fix: select other tasks (--task), or drop --engine`,
    );
  }
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
