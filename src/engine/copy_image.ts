/**
 * An image sent from one Docker engine to another, as `docker save IMAGE | docker load` does: the
 * bytes stream from one CLI to the other, never held whole, and the image keeps its id (its
 * content address) on the other side.
 *
 * @module
 */
import { InfrastructureError } from "../core/errors.ts";
import type { Docker } from "./docker.ts";

/**
 * Sends `image` from engine `from` to engine `to`; returns its id, the same on both.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Docker } from "./docker.ts";
 * import { copyImage } from "./copy_image.ts";
 * const docker = new Docker({ PATH: "/usr/bin:/bin" });
 * // From an engine to itself: a load of what it already has.
 * assert.match(await copyImage(docker, docker, "verdict/busybox"), /^sha256:/);
 * ```
 * @throws {InfrastructureError} naming the image and the engine when either side fails, or when
 * the image arrives with another id.
 */
export async function copyImage(
  from: Docker,
  to: Docker,
  image: string,
  signal?: AbortSignal,
): Promise<string> {
  const save = from.spawn(["save", image], { signal });
  const load = to.spawn(["load", "--quiet"], { stdin: true, signal });
  const [piped, saveErrors, loaded] = await Promise.allSettled([
    save.stdout.pipeTo(load.stdin),
    new Response(save.stderr).text(),
    load.output(),
  ]);
  const saved = await save.status;
  const problem = !saved.success
    ? `docker save: ${saveErrors.status === "fulfilled" ? saveErrors.value.trim() : "failed"}`
    : loaded.status === "rejected"
    ? String(loaded.reason)
    : loaded.value.code !== 0
    ? `docker load: ${new TextDecoder().decode(loaded.value.stderr).trim()}`
    : piped.status === "rejected"
    ? String(piped.reason)
    : undefined;
  if (problem !== undefined) {
    throw new InfrastructureError(`sending image ${image} to another engine failed: ${problem}`);
  }
  const [sent, arrived] = await Promise.all(
    [from, to].map((docker) =>
      docker.text(["image", "inspect", "--format", "{{.Id}}", image], { signal })
    ),
  );
  if (sent !== arrived) {
    throw new InfrastructureError(
      `image ${image} arrived as ${arrived}, not as ${sent}: the engine has another image by ` +
        `that name; remove it there or build the images again on it`,
    );
  }
  return sent;
}
