/**
 * Tests that need Docker call {@linkcode requireDocker} first: it fails loudly, naming how to
 * start an engine and build the images, instead of letting the test skip.
 *
 * @module
 */
import { Docker } from "../src/engine/docker.ts";

/** The images the bundled tasks and the tests use. */
export const TEST_IMAGES = ["verdict/python:3.11", "verdict/busybox"];

/** The recipe of the images `scripts/build-images.sh` builds (its `recipe`). */
const IMAGE_RECIPE = "4";

let checked: Promise<Docker> | undefined;

/** A docker runner, after checking an engine answers and the images exist. */
export function requireDocker(): Promise<Docker> {
  checked ??= check();
  return checked;
}

/** The environment a docker CLI child gets in tests. */
export function dockerEnv(): Record<string, string> {
  const env: Record<string, string> = { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin" };
  for (const name of ["HOME", "DOCKER_HOST"]) {
    const value = Deno.env.get(name);
    if (value) env[name] = value;
  }
  return env;
}

async function check(): Promise<Docker> {
  const docker = new Docker(dockerEnv());
  try {
    await docker.ping();
  } catch (error) {
    throw new Error(
      `this test needs a Docker engine and none answers (${(error as Error).message}). ` +
        "Start one: `apt-get install -y docker.io && (dockerd >/tmp/dockerd.log 2>&1 &)`, " +
        "then build the images: `scripts/build-images.sh`.",
    );
  }
  for (const image of TEST_IMAGES) {
    if (!await docker.hasImage(image)) {
      throw new Error(`this test needs the image ${image}: build it with scripts/build-images.sh`);
    }
    const recipe = await docker.text([
      "image",
      "inspect",
      "--format",
      '{{index .Config.Labels "verdict.recipe"}}',
      image,
    ]);
    if (recipe.trim() !== IMAGE_RECIPE) {
      throw new Error(
        `the image ${image} is of an older recipe (${recipe.trim() || "none"}, the tests need ` +
          `${IMAGE_RECIPE}): build it again with scripts/build-images.sh`,
      );
    }
  }
  return docker;
}

/** Ids of containers carrying a label. */
export async function containersLabelled(docker: Docker, label: string): Promise<string[]> {
  const text = await docker.text(["ps", "--all", "--quiet", "--filter", `label=${label}`]);
  return text.split("\n").filter((id) => id !== "");
}
