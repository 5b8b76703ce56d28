/**
 * A Harbor task's grader: where grading finds things in it, what its image adds to the task's
 * image, what grading takes, and what the image holds back from the agent's end state.
 *
 * @module
 */
import type { SandboxContainer } from "../engine/sandbox.ts";
import { packOwnedTar, type TarEntry } from "../engine/tar.ts";
import type { BlobStore } from "../store/blob_store.ts";
import type { TreeEntry } from "../task/file_tree.ts";
import type { HarborSettings } from "../task/task.ts";
import type { Snapshot } from "../workspace/snapshot.ts";

/** Where the task's `tests/` is in a Harbor grader. */
export const HARBOR_TESTS = "/tests";

/** Where the verifier writes its reward. */
export const HARBOR_VERIFIER_LOGS = "/logs/verifier";

/** The folder of the image's own copies of commands the agent shadowed, first on `PATH`. */
export const TRUSTED_BIN = "/verdict/trusted-bin";

/** The grader-owned `.pth` that appends the image's WORKDIR to Python's path. */
export const WORKDIR_PTH = "zz-verdict-workdir.pth";

/** What grading a Harbor task needs. */
export interface HarborGradeInput {
  /** The task's Harbor settings. */
  harbor: HarborSettings;
  /** The image's `WORKDIR`, where the verifier runs. */
  workdir: string;
  /** The blob store holding the sealed files. */
  blobs: BlobStore;
  /** The whole-container seal (paths relative to `/`). */
  final: Snapshot;
  /** The task's `tests/` (its `test.sh` is what the verifier runs). */
  tests: readonly TreeEntry[];
  /** A fresh container from {@linkcode harborGraderTar}'s image; nothing has run in it yet. */
  grader: SandboxContainer;
  /** The reward at or above which a trial passes. */
  passReward: number;
  /** Stops grading. */
  signal?: AbortSignal;
}

/**
 * What a Harbor grader's image adds to the task's image: the task's `tests/` at `/tests` and an
 * empty `/logs/verifier`, owned by root (the staging hands it to a verifier user of another name).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { harborGraderTar } from "./harbor_grader.ts";
 * const tar = harborGraderTar([{ path: "test.sh", type: "file", mode: 0o755, data: new Uint8Array() }]);
 * assert(tar.length % 512 === 0);
 * ```
 */
export function harborGraderTar(tests: readonly TreeEntry[]): Uint8Array {
  return packOwnedTar([{
    entries: [
      ...graderImageTarEntries(tests),
      { path: "logs", type: "dir", mode: 0o755 },
      { path: "logs/verifier", type: "dir", mode: 0o755 },
    ],
    options: { uid: 0, gid: 0 },
  }]);
}

/** `tests/` and the task's test files in it. */
function graderImageTarEntries(tests: readonly TreeEntry[]): TarEntry[] {
  return [
    { path: "tests", type: "dir", mode: 0o755 },
    ...tests.map((entry) => ({ ...entry, path: `tests/${entry.path}` }) as TarEntry),
  ];
}

/**
 * The user the verifier runs as, for the engine (`root` is `0:0`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { verifierUser } from "./harbor_grader.ts";
 * import type { HarborSettings } from "../task/task.ts";
 * const harbor = { verifier: { user: "root" } } as HarborSettings;
 * assert.equal(verifierUser(harbor), "0:0");
 * ```
 */
export function verifierUser(harbor: HarborSettings): string {
  return harbor.verifier.user === "root" ? "0:0" : harbor.verifier.user;
}

/**
 * Whether a sealed path is held back from the grader: what the image already holds for grading
 * (`/tests`, `/logs/verifier`), and the folders above it. Neither a planted copy nor a deletion,
 * a link or a file in their place reaches the grader.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { heldBack } from "./harbor_grader.ts";
 * assert(heldBack("tests/test.sh") && heldBack("logs") && !heldBack("app/main.py"));
 * ```
 */
export function heldBack(path: string): boolean {
  return ["tests", "logs/verifier"].some((folder) =>
    path === folder || path.startsWith(`${folder}/`) || folder.startsWith(`${path}/`)
  );
}
