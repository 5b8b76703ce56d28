/**
 * The same scenario against the Docker sandbox and the memory sandbox: what the core relies on
 * (start, copy in, exec, unpack and exec, copy out and seal, stop, find by label, adopt, remove,
 * derived images, the failures) must come out the same, so the memory one cannot drift from the
 * real one.
 */
import assert from "node:assert/strict";
import { sha256Hex } from "../../src/core/hash.ts";
import { InfrastructureError } from "../../src/core/errors.ts";
import { DERIVED_LABEL } from "../../src/engine/derived_image.ts";
import { DockerSandbox } from "../../src/engine/docker_sandbox.ts";
import { missingImageMessage } from "../../src/engine/image_messages.ts";
import { type ExecHandler, MemorySandbox } from "../../src/engine/memory_sandbox.ts";
import {
  AGENT_USER,
  type ContainerSpec,
  type Sandbox,
  type SandboxContainer,
} from "../../src/engine/sandbox.ts";
import { sealEntries } from "../../src/workspace/snapshot.ts";
import { packTar, type TarEntry } from "../../src/engine/tar.ts";
import { packWorkspaceTar } from "../../src/workspace/workspace_tar.ts";
import { requireDocker } from "../_docker.ts";

const text = (value: string) => new TextEncoder().encode(value);

const WORKSPACE: TarEntry[] = [
  { path: "a.txt", type: "file", mode: 0o644, data: text("first\n") },
  { path: "run.sh", type: "file", mode: 0o755, data: text("#!/bin/sh\necho hi\n") },
  { path: "empty", type: "dir", mode: 0o700 },
  { path: "link", type: "symlink", target: "a.txt" },
];

// The scenario's commands, as a test's exec handler answers them for the memory sandbox.
const ID = "id -u; id -g; pwd";
const CAT = "cat a.txt";
const EDIT = "echo changed > a.txt && mkdir sub && ln -s ../a.txt sub/link";
const FAIL = "echo oops >&2; exit 3";
const REPORT = "echo out; echo err >&2; echo 'verdict-tests passed=1' > report; exit 4";
const emulate: ExecHandler = ({ script, user, workdir, container: { files } }) => {
  const [uid, gid] = user.split(":");
  switch (script) {
    case ID:
      return { stdout: `${uid}\n${gid}\n${workdir}\n` };
    case CAT:
      return { stdout: files.text(`${workdir}/a.txt`) };
    case EDIT: {
      const file = files.get(`${workdir}/a.txt`);
      files.write(`${workdir}/a.txt`, "changed\n", file?.type === "file" ? file.mode : 0o644);
      files.mkdir(`${workdir}/sub`, 0o755);
      files.symlink(`${workdir}/sub/link`, "../a.txt");
      return {};
    }
    case FAIL:
      return { exitCode: 3, stderr: "oops\n" };
    case REPORT:
      files.write(`${workdir}/report`, "verdict-tests passed=1\n");
      return { exitCode: 4, stdout: "out\n", stderr: "err\n" };
  }
  throw new Error(`the scenario has no emulation of ${script}`);
};

/** What the scenario saw; equal for both engines. */
type Observed = Record<string, unknown>;

async function failure(work: () => Promise<unknown>): Promise<string> {
  try {
    await work();
  } catch (error) {
    return error instanceof InfrastructureError ? "InfrastructureError" : String(error);
  }
  return "no error";
}

async function scenario(sandbox: Sandbox, nonce: string): Promise<Observed> {
  const labels = { "verdict.test": "sandbox_conformance", "verdict.nonce": nonce };
  const spec: ContainerSpec = {
    image: "verdict/busybox",
    workdir: "/workspace",
    network: "none",
    labels: { ...labels, "verdict.role": "agent" },
    user: AGENT_USER,
  };
  const seen: Observed = {};
  const started: SandboxContainer[] = [];
  try {
    seen.missingImage = await sandbox.start({ ...spec, image: "verdict/no-such-image" }).then(
      () => "started",
      (error) => error instanceof InfrastructureError && error.message,
    );
    const container = await sandbox.start(spec);
    started.push(container);
    await container.copyIn(packWorkspaceTar(WORKSPACE, "/workspace"), "/");
    seen.staged = sealEntries(await container.copyOut("/workspace"), "workspace").root;
    seen.stagedIsWorkspace = seen.staged === sealEntries(WORKSPACE).root;
    seen.id = (await container.exec(ID, { timeoutMs: 10_000 })).stdout;
    seen.cat = await container.exec(CAT, { timeoutMs: 10_000 });
    seen.fail = await container.exec(FAIL, { timeoutMs: 10_000 });
    const adopted = sandbox.adopt(container.id, spec);
    seen.adoptedCat = (await adopted.exec(CAT, { timeoutMs: 10_000 })).stdout;
    await adopted.exec(EDIT, { timeoutMs: 10_000 });
    seen.edited = sealEntries(await container.copyOut("/workspace"), "workspace").root;
    seen.missingPath = await failure(() => container.copyOut("/workspace/nothing-here"));
    seen.running = await sandbox.findLabelled(
      [`verdict.nonce=${nonce}`, "verdict.role"],
      ["verdict.role", "verdict.absent"],
    );

    await container.stop();
    await container.stop(); // already stopped is fine
    seen.stopped = await sandbox.findLabelled([`verdict.nonce=${nonce}`], ["verdict.role"]);
    seen.execStopped = await failure(() => container.exec(CAT, { timeoutMs: 10_000 }));
    seen.sealedStopped = sealEntries(await container.copyOut("/workspace"), "workspace").root;

    const grader = await sandbox.start({
      ...spec,
      labels: { ...labels, "verdict.role": "grader" },
    });
    started.push(grader);
    // The workdir, empty and the agent's, as a grader's image has it.
    await grader.copyIn(packWorkspaceTar([], "/workspace"), "/");
    const unpacked = await grader.unpackAndExec(packWorkspaceTar(WORKSPACE, "."), CAT, {
      timeoutMs: 10_000,
    });
    seen.unpacked = unpacked;
    seen.graderSeal = sealEntries(await grader.copyOut("/workspace"), "workspace").root;
    const reportOf = async (command: string, path: string, maxBytes: number) => {
      const run = await grader.unpackAndExec(packTar([]), command, {
        timeoutMs: 10_000,
        report: { path, maxBytes },
      });
      return { ...run, report: run.report ?? "none" };
    };
    seen.reported = await reportOf(REPORT, "/workspace/report", 100);
    seen.reportTooLarge = (await reportOf(CAT, "/workspace/report", 5)).report;
    seen.reportLinked = (await reportOf(CAT, "/workspace/link", 100)).report;
    seen.reportMissing = (await reportOf(CAT, "/workspace/nothing", 100)).report;
    seen.roles = (await sandbox.findLabelled([`verdict.nonce=${nonce}`], ["verdict.role"]))
      .map(({ labels }) => labels["verdict.role"]).sort();

    await sandbox.removeContainers([grader.id]);
    await container.remove();
    await container.remove(); // already gone is fine
    seen.afterRemove = await sandbox.findLabelled([`verdict.nonce=${nonce}`]);
    seen.execRemoved = await failure(() => container.exec(CAT, { timeoutMs: 10_000 }));
    seen.stopRemoved = await failure(() => container.stop());
    seen.copyOutRemoved = await failure(() => container.copyOut("/workspace"));

    const images = sandbox.derivedImages(labels);
    const derivedTar = packWorkspaceTar(WORKSPACE, "/workspace");
    const image = await images.imageFor("verdict/busybox", derivedTar, {
      emptyFolder: "/workspace",
    });
    seen.derivedName = image.startsWith("verdict-derived:");
    seen.hasDerived = await sandbox.hasImage(image);
    const fromImage = await sandbox.start({ ...spec, image });
    started.push(fromImage);
    seen.derivedSeal = sealEntries(await fromImage.copyOut("/workspace"), "workspace").root;
    const derived = sandbox.derivedImages(labels);
    seen.notEmpty = await failure(() =>
      derived.imageFor(image, derivedTar, { emptyFolder: "/workspace" })
    );
    seen.hasMissing = await sandbox.hasImage("verdict/no-such-image");
  } finally {
    await sandbox.removeContainers(started.map(({ id }) => id));
  }
  return seen;
}

Deno.test("the memory sandbox behaves as the Docker sandbox on everything the core relies on", async () => {
  const docker = await requireDocker();
  const nonce = crypto.randomUUID();
  let real: Observed;
  try {
    real = await scenario(new DockerSandbox(docker), nonce);
  } finally {
    const tar = packWorkspaceTar(WORKSPACE, "/workspace");
    const ids = await docker.text([
      "images",
      "--quiet",
      "--filter",
      `label=${DERIVED_LABEL}=${sha256Hex(tar)}`,
    ]);
    if (ids !== "") await docker.run(["image", "rm", "--force", ...new Set(ids.split("\n"))]);
  }
  const memory = await scenario(
    new MemorySandbox({ exec: emulate, images: { "verdict/busybox": [] } }),
    nonce,
  );
  const normalize = (observed: Observed) =>
    JSON.parse(
      JSON.stringify(observed, (key, value) =>
        key === "id" && /^[0-9a-f]{12,64}$/.test(value) ? "<id>" : value),
    );
  assert.deepEqual(normalize(memory), normalize(real));
  // And what they agree on is right.
  assert.equal(real.missingImage, missingImageMessage("verdict/no-such-image"));
  assert.equal(real.stagedIsWorkspace, true);
  assert.equal(real.id, "1000\n1000\n/workspace\n");
  assert.notEqual(real.edited, real.staged);
  assert.equal(real.sealedStopped, real.edited);
  assert.equal(real.graderSeal, real.staged);
  assert.deepEqual(real.reported, {
    exitCode: 4,
    stdout: "",
    stderr: "out\nerr\n",
    timedOut: false,
    aborted: false,
    unpacked: true,
    report: "verdict-tests passed=1\n",
  });
  assert.deepEqual(
    [real.reportTooLarge, real.reportLinked, real.reportMissing],
    ["none", "none", "none"],
  );
  assert.equal(real.derivedSeal, real.staged);
  assert.deepEqual(real.roles, ["agent", "grader"]);
  assert.deepEqual(real.afterRemove, []);
  for (
    const key of ["missingPath", "execStopped", "execRemoved", "stopRemoved", "copyOutRemoved"]
  ) {
    assert.equal(real[key], "InfrastructureError", key);
  }
  assert.equal(real.notEmpty, "InfrastructureError");
});
