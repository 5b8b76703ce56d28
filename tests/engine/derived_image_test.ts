import assert from "node:assert/strict";
import { InfrastructureError } from "../../src/core/errors.ts";
import { sha256Hex } from "../../src/core/hash.ts";
import { AGENT_USER } from "../../src/engine/sandbox.ts";
import { startContainer } from "../../src/engine/container.ts";
import { sealEntries } from "../../src/workspace/snapshot.ts";
import { packTar, type TarEntry } from "../../src/engine/tar.ts";
import { DERIVED_LABEL, DerivedImages } from "../../src/engine/derived_image.ts";
import { containersLabelled, requireDocker } from "../_docker.ts";

const LABELS = { "verdict.test": "derived_image_test" };
const text = (value: string) => new TextEncoder().encode(value);

/** A workspace no earlier test run has built an image of. */
function uniqueWorkspace(): { entries: TarEntry[]; tar: Uint8Array } {
  const entries: TarEntry[] = [
    { path: "workspace", type: "dir", mode: 0o755 },
    { path: "workspace/run.sh", type: "file", mode: 0o755, data: text("#!/bin/sh\necho hi\n") },
    { path: "workspace/empty", type: "dir", mode: 0o700 },
    { path: "workspace/link", type: "symlink", target: "run.sh" },
    { path: "workspace/nonce", type: "file", mode: 0o600, data: text(crypto.randomUUID()) },
  ];
  return { entries, tar: packTar(entries, { uid: 1000, gid: 1000 }) };
}

async function removeImages(tar: Uint8Array): Promise<void> {
  const docker = await requireDocker();
  const ids = await docker.text([
    "images",
    "--quiet",
    "--filter",
    `label=${DERIVED_LABEL}=${sha256Hex(tar)}`,
  ]);
  if (ids !== "") await docker.text(["image", "rm", "--force", ...new Set(ids.split("\n"))]);
}

Deno.test("a workspace image starts a container holding exactly the workspace, owned by the agent", async () => {
  const docker = await requireDocker();
  const { entries, tar } = uniqueWorkspace();
  try {
    const image = await new DerivedImages(docker, LABELS).imageFor("verdict/busybox", tar);
    const container = await startContainer(docker, {
      image,
      workdir: "/workspace",
      network: "none",
      labels: LABELS,
      user: AGENT_USER,
    });
    try {
      const sealed = sealEntries(await container.copyOut("/workspace"), "workspace");
      assert.equal(
        sealed.root,
        sealEntries(entries, "workspace").root,
        "seal differs from the tar",
      );
      const owners = await container.exec("stat -c '%u:%g %n' run.sh empty nonce", {
        timeoutMs: 10_000,
      });
      assert.equal(owners.stdout, "1000:1000 run.sh\n1000:1000 empty\n1000:1000 nonce\n");
      const writable = await container.exec("echo more >> nonce && rm run.sh", {
        timeoutMs: 10_000,
      });
      assert.equal(writable.exitCode, 0, writable.stderr);
    } finally {
      await container.remove();
    }
  } finally {
    await removeImages(tar);
  }
});

Deno.test("a workspace image is built once for concurrent trials, and again for a changed workspace", async () => {
  const docker = await requireDocker();
  const first = uniqueWorkspace();
  const second = uniqueWorkspace();
  try {
    const images = new DerivedImages(docker, LABELS);
    const tags = await Promise.all(
      Array.from({ length: 4 }, () => images.imageFor("verdict/busybox", first.tar)),
    );
    assert.equal(new Set(tags).size, 1);
    const built = await docker.text([
      "images",
      "--quiet",
      "--no-trunc",
      "--filter",
      `label=${DERIVED_LABEL}=${sha256Hex(first.tar)}`,
    ]);
    assert.equal(
      built.split("\n").filter((id) => id !== "").length,
      1,
      "one image for four concurrent requests",
    );
    assert.equal(
      await new DerivedImages(docker, LABELS).imageFor("verdict/busybox", first.tar),
      tags[0],
      "a later process finds the cached image by content",
    );
    assert.notEqual(await images.imageFor("verdict/busybox", second.tar), tags[0]);
    assert.deepEqual(
      await containersLabelled(docker, "verdict.test=derived_image_test"),
      [],
      "the containers images are committed from are removed",
    );
  } finally {
    await removeImages(first.tar);
    await removeImages(second.tar);
  }
});

Deno.test("a workspace image of a missing base image names the image and the build script", async () => {
  const docker = await requireDocker();
  await assert.rejects(
    () => new DerivedImages(docker, LABELS).imageFor("verdict/not-built:1", new Uint8Array(1024)),
    (error: Error) =>
      error instanceof InfrastructureError &&
      /image verdict\/not-built:1 is missing: build it with scripts\/build-images\.sh/.test(
        error.message,
      ),
  );
});

Deno.test("a base image with files already in the workdir is refused, naming them", async () => {
  const docker = await requireDocker();
  const base = "verdict-test/full-workdir:1";
  const id = await docker.text([
    "create",
    "--label",
    "verdict.test=derived_image_test",
    "verdict/busybox",
  ]);
  try {
    const inWorkdir = packTar([
      { path: "workspace", type: "dir", mode: 0o755 },
      { path: "workspace/vendored.py", type: "file", mode: 0o644, data: text("x = 1\n") },
    ]);
    const copied = await docker.run(["cp", "-", `${id}:/`], { stdin: inWorkdir });
    assert.equal(copied.code, 0, copied.stderr);
    await docker.text(["commit", id, base]);
    const { tar } = uniqueWorkspace();
    await assert.rejects(
      () => new DerivedImages(docker, LABELS).imageFor(base, tar, { emptyFolder: "/workspace" }),
      (error: Error) =>
        error instanceof InfrastructureError &&
        /image verdict-test\/full-workdir:1 already has files in \/workspace \(workspace\/vendored\.py\)/
          .test(error.message),
    );
    assert.match(
      await new DerivedImages(docker, LABELS).imageFor(base, tar),
      /^verdict-derived:/,
      "without the requirement the same image builds",
    );
    await removeImages(tar);
  } finally {
    await docker.run(["rm", "--force", id]);
    await docker.run(["image", "rm", "--force", base]);
  }
});
