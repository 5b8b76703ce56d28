/**
 * Removing the derived images one state folder made: those labelled with its owner. An image a
 * container still uses (this folder's or anyone's) is left, and said to be in use; images other
 * folders made, and every image Verdict did not derive, are never touched.
 *
 * @module
 */
import { InfrastructureError } from "../core/errors.ts";
import type { Docker } from "./docker.ts";
import { DERIVED_LABEL } from "./derived_image.ts";

/** What a removal did. */
export interface RemovedImages {
  /** The tags removed. */
  removed: string[];
  /** The tags left because a container uses them. */
  inUse: string[];
}

/**
 * Removes every derived image whose `label` (such as `verdict.owner=…`) matches.
 *
 * @throws {InfrastructureError} when the engine refuses for another reason than an image in use.
 * @example
 * ```ts ignore
 * const { removed } = await removeDerivedImages(docker, "verdict.owner=1a2b3c4d5e6f7a8b");
 * ```
 */
export async function removeDerivedImages(docker: Docker, label: string): Promise<RemovedImages> {
  const listed = await docker.text([
    "images",
    "--filter",
    `label=${DERIVED_LABEL}`,
    "--filter",
    `label=${label}`,
    "--format",
    "{{.Repository}}:{{.Tag}}",
  ]);
  const tags = listed.split("\n").filter((tag) => tag !== "" && !tag.endsWith(":<none>"));
  const result: RemovedImages = { removed: [], inUse: [] };
  for (const tag of tags) {
    // One at a time, never forced: the engine refuses an image a container uses.
    const removed = await docker.run(["image", "rm", tag]);
    if (removed.code === 0) result.removed.push(tag);
    else if (/conflict|is using|being used/i.test(removed.stderr)) result.inUse.push(tag);
    else {
      throw new InfrastructureError(
        `could not remove the image ${tag}: ${removed.stderr.trim().split("\n")[0]}`,
      );
    }
  }
  return result;
}
