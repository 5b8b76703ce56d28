/**
 * What Verdict says when an image cannot serve: missing, or with files where a workspace goes.
 *
 * @module
 */

/**
 * The message for a missing image: its name and how to build it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { missingImageMessage } from "./image_messages.ts";
 * assert(missingImageMessage("verdict/busybox").includes("scripts/build-images.sh"));
 * ```
 */
export function missingImageMessage(image: string): string {
  return `image ${image} is missing: build it with scripts/build-images.sh (as root, with a ` +
    `running Docker engine), or point the task's image at one you have`;
}

/**
 * The message for a base image that already has files in the folder a workspace is staged into.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { folderNotEmptyMessage } from "./image_messages.ts";
 * assert(folderNotEmptyMessage("app", "/workspace", ["workspace/a"]).includes("workspace/a"));
 * ```
 */
export function folderNotEmptyMessage(
  image: string,
  folder: string,
  inside: readonly string[],
): string {
  return `image ${image} already has files in ${folder} (${inside.slice(0, 3).join(", ")}${
    inside.length > 3 ? ", ..." : ""
  }): the task's workspace is staged into an empty ${folder}, for the agent and for grading; ` +
    `build the image without them, or give the task another workdir`;
}
