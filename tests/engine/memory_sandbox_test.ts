import assert from "node:assert/strict";
import { InfrastructureError } from "../../src/core/errors.ts";
import { MemorySandbox } from "../../src/engine/memory_sandbox.ts";
import { AGENT_USER, type ContainerSpec } from "../../src/engine/sandbox.ts";
import { sealEntries, sealGuard, WorkspaceLimitError } from "../../src/workspace/snapshot.ts";
import type { TarEntry } from "../../src/engine/tar.ts";
import { packWorkspaceTar } from "../../src/workspace/workspace_tar.ts";

const text = (value: string) => new TextEncoder().encode(value);

const SPEC: ContainerSpec = {
  image: "verdict/busybox",
  workdir: "/workspace",
  network: "none",
  labels: { "verdict.run": "r1", "verdict.role": "agent" },
  user: AGENT_USER,
};

const WORKSPACE: TarEntry[] = [
  { path: "a.txt", type: "file", mode: 0o644, data: text("first\n") },
  { path: "src", type: "dir", mode: 0o750 },
  { path: "src/b.py", type: "file", mode: 0o755, data: text("print(1)\n") },
  { path: "link", type: "symlink", target: "a.txt" },
];

Deno.test("a workspace copied in seals out to the same root, through the seal's guard", async () => {
  const sandbox = new MemorySandbox();
  const container = await sandbox.start(SPEC);
  await container.copyIn(packWorkspaceTar(WORKSPACE, "/workspace"), "/");
  const out = await container.copyOut("/workspace", sealGuard("/workspace", {}));
  assert.deepEqual(out.map((entry) => entry.path), [
    "workspace",
    "workspace/a.txt",
    "workspace/link",
    "workspace/src",
    "workspace/src/b.py",
  ]);
  assert.equal(sealEntries(out, "workspace").root, sealEntries(WORKSPACE).root);
  await assert.rejects(
    () => container.copyOut("/workspace", sealGuard("/workspace", { max_workspace_files: 2 })),
    WorkspaceLimitError,
  );
});

Deno.test("the exec handler sees the command, its user and workdir and the files, and its changes stay", async () => {
  const sandbox = new MemorySandbox({
    exec: ({ script, user, workdir, options, container: { files } }) => {
      if (script === "edit") files.write(`${workdir}/new.txt`, options.env?.WORDS ?? "");
      return { stdout: `${user} ${workdir} ${script}`, exitCode: script === "edit" ? 0 : 1 };
    },
  });
  const container = await sandbox.start(SPEC);
  const result = await container.exec("edit", { timeoutMs: 1000, env: { WORDS: "hello" } });
  assert.deepEqual(result, {
    exitCode: 0,
    stdout: `${AGENT_USER} /workspace edit`,
    stderr: "",
    timedOut: false,
    aborted: false,
  });
  const other = await container.exec("x", { timeoutMs: 1000, user: "0:0", workdir: "/tmp" });
  assert.equal(other.stdout, "0:0 /tmp x");
  assert.equal(other.exitCode, 1);
  assert.equal(sandbox.container(container.id)!.files.text("/workspace/new.txt"), "hello");
  const sealed = sealEntries(await container.copyOut("/workspace"), "workspace");
  assert.deepEqual(sealed.entries.map((entry) => entry.path), ["new.txt"]);
});

Deno.test("with no handler, a command exits 0 with no output", async () => {
  const container = await new MemorySandbox().start(SPEC);
  assert.deepEqual(await container.exec("anything", { timeoutMs: 1 }), {
    exitCode: 0,
    stdout: "",
    stderr: "",
    timedOut: false,
    aborted: false,
  });
});

Deno.test("unpackAndExec unpacks into the workdir before the command, which the handler may fail", async () => {
  const sandbox = new MemorySandbox({
    exec: ({ script, unpacked, container: { files } }) =>
      script === "fail" ? { unpacked: false, exitCode: 2, stderr: "tar: short read" } : {
        stdout: `${unpacked !== undefined} ${files.text("/workspace/a.txt")}`,
      },
  });
  const grader = await sandbox.start({ ...SPEC, user: undefined });
  const tar = packWorkspaceTar(WORKSPACE, ".");
  const run = await grader.unpackAndExec(tar, "'/verdict/tests/test.sh'", { timeoutMs: 1000 });
  assert.equal(run.unpacked, true);
  assert.equal(run.stdout, "true first\n");
  assert.equal(sandbox.container(grader.id)!.files.get("/workspace/src")?.type, "dir");
  const failed = await grader.unpackAndExec(tar, "fail", { timeoutMs: 1000 });
  assert.equal(failed.unpacked, false);
  assert.equal(failed.stderr, "tar: short read");
  assert.deepEqual(sandbox.operations.filter((op) => op.op === "exec").map((op) => op), [
    {
      op: "exec",
      id: grader.id,
      script: "'/verdict/tests/test.sh'",
      user: AGENT_USER,
      workdir: "/workspace",
      unpack: true,
    },
    {
      op: "exec",
      id: grader.id,
      script: "fail",
      user: AGENT_USER,
      workdir: "/workspace",
      unpack: true,
    },
  ]);
});

Deno.test("an aborted command comes back aborted, killed, whether the signal comes before or during", async () => {
  let started!: () => void;
  const running = new Promise<void>((resolve) => (started = resolve));
  const sandbox = new MemorySandbox({
    exec: () => {
      started();
      return new Promise(() => {}); // never answers by itself
    },
  });
  const container = await sandbox.start(SPEC);
  const controller = new AbortController();
  const result = container.exec("sleep 1000", { timeoutMs: 1000, signal: controller.signal });
  await running;
  controller.abort();
  assert.deepEqual(await result, {
    exitCode: 137,
    stdout: "",
    stderr: "",
    timedOut: false,
    aborted: true,
  });
  const again = await container.exec("x", { timeoutMs: 1, signal: controller.signal });
  assert.equal(again.aborted, true);
});

Deno.test("stop, die, remove and vanish follow Docker: what still works and what is an infrastructure error", async () => {
  const sandbox = new MemorySandbox();
  const container = await sandbox.start(SPEC);
  await container.copyIn(packWorkspaceTar(WORKSPACE, "/workspace"), "/");
  await container.stop();
  await container.stop();
  await assert.rejects(() => container.exec("x", { timeoutMs: 1 }), InfrastructureError);
  assert.equal((await container.copyOut("/workspace")).length, 5, "a stopped container copies out");
  assert.deepEqual(await sandbox.findLabelled(["verdict.run=r1"], ["verdict.role"]), [
    { id: container.id, state: "exited", labels: { "verdict.role": "agent" } },
  ]);

  const dying = await sandbox.start(SPEC);
  sandbox.die(dying.id);
  await assert.rejects(() => dying.exec("x", { timeoutMs: 1 }), /is not running/);
  assert.equal(sandbox.container(dying.id)!.state, "exited");

  const vanishing = await sandbox.start(SPEC);
  sandbox.vanish(vanishing.id);
  await assert.rejects(() => vanishing.exec("x", { timeoutMs: 1 }), /No such container/);
  await assert.rejects(() => vanishing.copyOut("/workspace"), InfrastructureError);
  await assert.rejects(() => vanishing.copyIn(new Uint8Array(1024), "/"), InfrastructureError);
  await assert.rejects(() => vanishing.stop(), InfrastructureError);
  await vanishing.remove(); // already gone is fine

  await container.remove();
  await assert.rejects(() => container.copyOut("/workspace"), InfrastructureError);
  assert.deepEqual(sandbox.live().map(({ id }) => id), [dying.id]);
  await sandbox.removeContainers([dying.id, "no-such-id"]);
  assert.deepEqual(sandbox.live(), []);
});

Deno.test("findLabelled matches every filter (key=value or key alone), newest first, with the keys asked", async () => {
  const sandbox = new MemorySandbox();
  const agent = await sandbox.start(SPEC);
  const grader = await sandbox.start({
    ...SPEC,
    labels: { "verdict.run": "r1", "verdict.role": "grader" },
  });
  await sandbox.start({ ...SPEC, labels: { "verdict.run": "r2" } });
  assert.deepEqual(
    (await sandbox.findLabelled(["verdict.run=r1"])).map(({ id }) => id),
    [grader.id, agent.id],
  );
  assert.deepEqual(await sandbox.findLabelled(["verdict.role=grader"], ["verdict.role", "x"]), [
    { id: grader.id, state: "running", labels: { "verdict.role": "grader", x: "" } },
  ]);
  assert.equal((await sandbox.findLabelled(["verdict.role"])).length, 2);
});

Deno.test("a container adopted by id is the one that survived, files and all", async () => {
  const sandbox = new MemorySandbox();
  const original = await sandbox.start(SPEC);
  await original.copyIn(packWorkspaceTar(WORKSPACE, "/workspace"), "/");
  const [found] = await sandbox.findLabelled(["verdict.run=r1"]);
  const adopted = sandbox.adopt(found.id, SPEC);
  const sealed = sealEntries(await adopted.copyOut("/workspace"), "workspace");
  assert.equal(sealed.root, sealEntries(WORKSPACE).root);
  const ghost = sandbox.adopt("0".repeat(64), SPEC);
  await assert.rejects(() => ghost.exec("x", { timeoutMs: 1 }), InfrastructureError);
  assert.deepEqual(sandbox.operations.filter(({ op }) => op === "adopt").length, 2);
});

Deno.test("images: a missing one fails the start, a derived one starts with the tar in place", async () => {
  const sandbox = new MemorySandbox({
    images: {
      "verdict/busybox": [],
      "dirty": [{ path: "workspace/left.txt", type: "file", mode: 0o644, data: text("x") }],
    },
  });
  assert.equal(await sandbox.hasImage("verdict/busybox"), true);
  assert.equal(await sandbox.hasImage("verdict/python:3.11"), false);
  await assert.rejects(
    () => sandbox.start({ ...SPEC, image: "verdict/python:3.11" }),
    /image verdict\/python:3\.11 is missing: build it with scripts\/build-images\.sh/,
  );
  const images = sandbox.derivedImages({ "verdict.run": "r1" });
  const tar = packWorkspaceTar(WORKSPACE, "/workspace");
  const image = await images.imageFor("verdict/busybox", tar, { emptyFolder: "/workspace" });
  assert.equal(
    await images.imageFor("verdict/busybox", tar),
    image,
    "the same pair, the same image",
  );
  const container = await sandbox.start({ ...SPEC, image });
  const sealed = sealEntries(await container.copyOut("/workspace"), "workspace");
  assert.equal(sealed.root, sealEntries(WORKSPACE).root);
  await assert.rejects(
    () => images.imageFor("dirty", tar, { emptyFolder: "/workspace" }),
    /image dirty already has files in \/workspace \(workspace\/left\.txt\)/,
  );
  await assert.rejects(() => images.imageFor("nothing", tar), InfrastructureError);
});

Deno.test("a fault hook fails the operation it picks, which then does nothing", async () => {
  const sandbox = new MemorySandbox({
    fault: (operation) => {
      if (operation.op === "start" && operation.spec.labels["verdict.role"] === "grader") {
        throw new InfrastructureError("the engine refused");
      }
      if (operation.op === "exec" && operation.script === "lost") {
        throw new InfrastructureError("could not run a command: No such container");
      }
    },
  });
  const agent = await sandbox.start(SPEC);
  await assert.rejects(
    () => sandbox.start({ ...SPEC, labels: { "verdict.role": "grader" } }),
    /the engine refused/,
  );
  await assert.rejects(() => agent.exec("lost", { timeoutMs: 1 }), InfrastructureError);
  assert.equal((await agent.exec("fine", { timeoutMs: 1 })).exitCode, 0);
  assert.deepEqual(
    sandbox.containers().map(({ id }) => id),
    [agent.id],
    "the failed start made none",
  );
  assert.deepEqual(sandbox.operations.map(({ op }) => op), ["start", "start", "exec", "exec"]);
});
