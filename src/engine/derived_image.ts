/**
 * Derived images: a task's image with a tar stream already unpacked in it (the staged workspace for
 * the agent's container, the held-out tests for the grader's), made once per (image, tar) and kept
 * by Docker, so a trial's containers start with their files in place instead of waiting for a
 * copy. The name is content-addressed (the base image's id and the tar's sha256), so a rebuilt base
 * image or a changed workspace gets a new one, and a cached one is exactly what copying in would
 * have produced.
 *
 * @module
 */
import { InfrastructureError } from "../core/errors.ts";
import { sha256Hex } from "../core/hash.ts";
import { type Docker, firstLine } from "./docker.ts";
import type { DerivedImageOptions, DerivedImageSource } from "./sandbox.ts";
import { folderNotEmptyMessage, missingImageMessage } from "./image_messages.ts";
import { parseTar } from "./tar.ts";

/** The repository every derived image is tagged in. */
export const DERIVED_REPOSITORY = "verdict-derived";

/** The label every derived image carries (its value is the tar's sha256); `docker image rm` by it. */
export const DERIVED_LABEL = "verdict.derived";

/**
 * Makes and remembers derived images for one process.
 *
 * @example
 * ```ts
 * import { Docker } from "./docker.ts";
 * import { packTar } from "./tar.ts";
 * import { DerivedImages } from "./derived_image.ts";
 * const docker = new Docker({ PATH: "/usr/bin:/bin" });
 * const images = new DerivedImages(docker, { "verdict.run": "r1" });
 * const tar = packTar([{ path: "workspace/a.txt", type: "file", mode: 0o644, data: new Uint8Array([104]) }]);
 * const image = await images.imageFor("verdict/busybox", tar);
 * console.log(image); // verdict-derived:…, with /workspace/a.txt in it
 * await docker.run(["image", "rm", image]);
 * ```
 */
export class DerivedImages implements DerivedImageSource {
  readonly #docker: Docker;
  readonly #labels: Record<string, string>;
  readonly #images = new Map<string, Promise<string>>();
  readonly #baseIds = new Map<string, Promise<string>>();
  #existing: Promise<Set<string>> | undefined;
  // Every repeat of a task passes the same staged tar: hash it once, not once per trial.
  readonly #tarHashes = new WeakMap<Uint8Array, string>();

  /**
   * @param docker The docker CLI.
   * @param labels Labels for the short-lived container an image is committed from (so an
   * interrupted run's sweep finds it).
   */
  constructor(docker: Docker, labels: Record<string, string>) {
    this.#docker = docker;
    this.#labels = labels;
  }

  /**
   * The image `base` with `tar` unpacked at `/`.
   * Concurrent callers for the same pair share one build.
   *
   * @throws {InfrastructureError} when the base image is missing, has files in `emptyFolder`, or
   * the engine refuses.
   */
  imageFor(base: string, tar: Uint8Array, options: DerivedImageOptions = {}): Promise<string> {
    let tarHash = this.#tarHashes.get(tar);
    if (tarHash === undefined) this.#tarHashes.set(tar, tarHash = sha256Hex(tar));
    const key = `${base}\n${tarHash}`;
    let image = this.#images.get(key);
    if (image === undefined) {
      image = this.#ensure(base, tar, tarHash, options);
      this.#images.set(key, image);
      image.catch(() => this.#images.delete(key));
    }
    return image;
  }

  // Each base image is inspected once per run, however many tars are unpacked onto it.
  #baseId(base: string, signal: AbortSignal | undefined): Promise<string> {
    let id = this.#baseIds.get(base);
    if (id === undefined) {
      id = this.#docker.run(["image", "inspect", "--format", "{{.Id}}", base], { signal })
        .then((inspected) => {
          if (inspected.code !== 0) throw new InfrastructureError(missingImageMessage(base));
          return new TextDecoder().decode(inspected.stdout).trim();
        });
      this.#baseIds.set(base, id);
      id.catch(() => this.#baseIds.delete(base));
    }
    return id;
  }

  // The derived images the engine had when the run began: one listing, not one inspect per image.
  #existingTags(signal: AbortSignal | undefined): Promise<Set<string>> {
    if (this.#existing === undefined) {
      const listing = this.#docker.text([
        "images",
        "--filter",
        `label=${DERIVED_LABEL}`,
        "--format",
        "{{.Repository}}:{{.Tag}}",
      ], { signal }).then((text) => new Set(text.split("\n")));
      this.#existing = listing;
      listing.catch(() => this.#existing = undefined);
    }
    return this.#existing;
  }

  async #ensure(
    base: string,
    tar: Uint8Array,
    tarHash: string,
    { emptyFolder, signal }: DerivedImageOptions,
  ): Promise<string> {
    const docker = this.#docker;
    const baseId = await this.#baseId(base, signal);
    const tag = `${DERIVED_REPOSITORY}:${sha256Hex(`${baseId}\n${tarHash}`).slice(0, 32)}`;
    if ((await this.#existingTags(signal)).has(tag)) return tag;

    const labels = Object.entries(this.#labels).flatMap(([key, value]) => [
      "--label",
      `${key}=${value}`,
    ]);
    // Created, never started: nothing runs in it, and `docker cp` writes straight into its layer.
    const id = await docker.text(["create", "--pull=never", "--network=none", ...labels, base], {
      signal,
    });
    try {
      if (emptyFolder !== undefined) await requireEmpty(docker, id, base, emptyFolder, signal);
      const copied = await docker.run(["cp", "-", `${id}:/`], { stdin: tar, signal });
      if (copied.code !== 0) {
        throw new InfrastructureError(
          `could not copy files into an image of ${base}: ${firstLine(copied.stderr)}`,
        );
      }
      await docker.text(
        ["commit", "--change", `LABEL ${DERIVED_LABEL}=${tarHash}`, id, tag],
        { signal },
      );
    } finally {
      await docker.run(["rm", "--force", "--volumes", id]).catch(() => undefined);
    }
    return tag;
  }
}

async function requireEmpty(
  docker: Docker,
  container: string,
  base: string,
  folder: string,
  signal?: AbortSignal,
): Promise<void> {
  const copied = await docker.run(["cp", `${container}:${folder}`, "-"], { signal });
  if (copied.code !== 0) {
    if (/Could not find the file|no such file/i.test(copied.stderr)) return;
    throw new InfrastructureError(
      `could not look into ${folder} of ${base}: ${firstLine(copied.stderr)}`,
    );
  }
  const inside = parseTar(copied.stdout).map((entry) => entry.path).filter((path) =>
    path.includes("/")
  );
  if (inside.length === 0) return;
  throw new InfrastructureError(folderNotEmptyMessage(base, folder, inside));
}
