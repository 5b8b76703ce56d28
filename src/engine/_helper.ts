/**
 * The engine's static helper: a statically linked busybox, taken from the engine's own
 * `verdict/busybox` image (so it matches the engine's architecture, local or remote) and copied
 * into a container with `docker cp` at {@linkcode HELPER}, root's. Run by its absolute path as
 * `HELPER sh -c SCRIPT`, its shell runs its own applets (`tar`, `head`, `kill`...) before anything
 * on `PATH`, and being static it ignores `/etc/ld.so.preload` and the image's libraries: what an
 * agent deletes, wraps or plants in its container changes none of the tools the harness runs.
 *
 * @module
 */
import type { Docker } from "./docker.ts";
import { packOwnedTar } from "./tar.ts";

/** Where the helper lives in a container (left out of every seal, like all of `/verdict`). */
export const HELPER = "/verdict/engine/busybox";

/** The image the helper is taken from (`scripts/build-images.sh` builds it). */
export const HELPER_IMAGE = "verdict/busybox";

const PT_INTERP = 3;
const loaded = new WeakMap<Docker, Promise<Uint8Array | undefined>>();

/**
 * The tar stream that installs the helper at `/` (root's, mode 0755), read from the engine once
 * per `Docker`; undefined when the engine has no `verdict/busybox` with a static busybox in it.
 *
 * @example
 * ```ts ignore
 * import { Docker } from "./docker.ts";
 * import { helperTar } from "./_helper.ts";
 * const tar = await helperTar(new Docker({ PATH: "/usr/bin:/bin" }));
 * ```
 */
export function helperTar(docker: Docker): Promise<Uint8Array | undefined> {
  let tar = loaded.get(docker);
  if (tar === undefined) {
    tar = readHelper(docker).catch(() => undefined);
    loaded.set(docker, tar);
  }
  return tar;
}

/**
 * Copies the helper into container `id` (running or stopped), over whatever is at its path;
 * whether it is there now.
 *
 * @example
 * ```ts ignore
 * import { Docker } from "./docker.ts";
 * import { installHelper } from "./_helper.ts";
 * await installHelper(new Docker({ PATH: "/usr/bin:/bin" }), "CONTAINER");
 * ```
 */
export async function installHelper(docker: Docker, id: string): Promise<boolean> {
  const tar = await helperTar(docker);
  if (tar === undefined) return false;
  const copied = await docker.run(["cp", "-", `${id}:/`], { stdin: tar, timeoutMs: 30_000 })
    .catch(() => undefined);
  return copied?.code === 0;
}

async function readHelper(docker: Docker): Promise<Uint8Array | undefined> {
  // One call, and the engine removes the container however this process ends (`--rm`): a
  // created container copied from and removed after would outlive a killed process. Labelled, so
  // one seen running on a shared engine is recognisable as Verdict's.
  const read = await docker.run([
    "run",
    "--rm",
    "--pull=never",
    "--network=none",
    "--label",
    "verdict.role=helper-source",
    "--entrypoint",
    "/bin/busybox",
    HELPER_IMAGE,
    "cat",
    "/bin/busybox",
  ]);
  if (read.code !== 0 || !isStatic(read.stdout)) return undefined;
  return packOwnedTar([{
    entries: [
      { path: "verdict/engine", type: "dir", mode: 0o755 },
      { path: "verdict/engine/busybox", type: "file", mode: 0o755, data: read.stdout },
    ],
    options: { uid: 0, gid: 0 },
  }]);
}

// Whether `bytes` is a 64-bit little-endian ELF executable with no program interpreter.
function isStatic(bytes: Uint8Array): boolean {
  if (bytes.length < 64 || bytes[0] !== 0x7f || bytes[1] !== 0x45 || bytes[4] !== 2) return false;
  if (bytes[5] !== 1) return false;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const phoff = Number(view.getBigUint64(32, true));
  const phentsize = view.getUint16(54, true);
  const phnum = view.getUint16(56, true);
  if (phoff + phentsize * phnum > bytes.length) return false;
  for (let i = 0; i < phnum; i++) {
    if (view.getUint32(phoff + i * phentsize, true) === PT_INTERP) return false;
  }
  return true;
}
