/**
 * The installed agent's probe, without Docker: each image of the run is tried once, in a
 * throwaway container with the agent's mounts, and an image that cannot run the agent's binary
 * refuses the run before it starts, naming the image, its tasks and what it lacks.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { claudeCodeAgent } from "../../../src/agent/claude_code_agent.ts";
import { cmdAgent } from "../../../src/agent/cmd_agent.ts";
import { codexAgent } from "../../../src/agent/codex_agent.ts";
import { InfrastructureError, UsageError } from "../../../src/core/errors.ts";
import { requireRunnableImages } from "../../../src/eval/setup/installed_probe.ts";
import { OWNER_LABEL } from "../../../src/eval/trial/run_owner.ts";
import type { Kit } from "../../../src/kit/kit_store.ts";
import { type ExecHandler, MemorySandbox } from "../../../src/engine/memory_sandbox.ts";
import { loadTask } from "../../../src/task/load_task.ts";
import type { Task } from "../../../src/task/task.ts";
import { PROJECT_ROOT, scratchDir } from "../../_verdict.ts";
import type { MemoryNode } from "../../../src/engine/memory_files.ts";

const OWNER = "0123456789abcdef";
const RUN = { id: "5e1f00000001", owner: OWNER };
const LOADER = "/lib64/ld-linux-x86-64.so.2";

const kit = (agent: string, binary: string, interpreter: string | null): Kit => ({
  agent,
  version: "1.0.0",
  folder: `/kits/${agent}/1.0.0`,
  binary,
  sha256: "0".repeat(64),
  size: 1,
  interpreter,
  packages: [],
  companions: [],
});
const CLAUDE = claudeCodeAgent(kit("claude-code", "claude", LOADER), "scripted");

const base = await loadTask(join(PROJECT_ROOT, "tasks/fix-slugify"));
/** The task, as if it had another id and image. */
const task = (id: string, image: string): Task => ({
  ...base,
  id,
  manifest: { ...base.manifest, id, image },
});
const TASKS = [
  task("py-one", "verdict/python:3.11"),
  task("bb-one", "verdict/busybox"),
  task("py-two", "verdict/python:3.11"),
  task("bb-two", "verdict/busybox"),
];

/** The probe runs where the image has a C library; busybox has no loader (`not found`, 127). */
const glibcOnlyInPython: ExecHandler = ({ container }) =>
  container.spec.image === "verdict/busybox"
    ? { exitCode: 127, stderr: "sh: /verdict/kit/claude: not found\n" }
    : { stdout: "2.1.332 (Claude Code)\n" };

Deno.test("an image that cannot run the binary refuses the run, naming the image, its tasks and the loader", async () => {
  const sandbox = new MemorySandbox({ exec: glibcOnlyInPython });
  let message = "";
  await assert.rejects(
    () => requireRunnableImages(sandbox, CLAUDE, TASKS, RUN, new AbortController().signal),
    (error) => {
      assert(error instanceof UsageError);
      message = error.message;
      return true;
    },
  );
  assert.match(message, /the image verdict\/busybox cannot run claude-code@1\.0\.0/);
  assert(message.includes(LOADER), message);
  assert.match(
    message,
    /'\/verdict\/kit\/claude --version' exited 127: sh: \/verdict\/kit\/claude: not found/,
  );
  assert.match(message, /needed by bb-one, bb-two/);
  assert(!message.includes("python"), "the image that runs it is not named");
  assert.match(message, /--task ID/);
  // One throwaway container per image, with the kit mounted, no network, labelled as the run's.
  const starts = sandbox.operations.flatMap((op) => op.op === "start" ? [op.spec] : []);
  assert.deepEqual(starts.slice(0, 2).map((spec) => spec.image), [
    "verdict/python:3.11",
    "verdict/busybox",
  ]);
  for (const spec of starts) {
    assert.equal(spec.network, "none");
    assert.equal(spec.labels[OWNER_LABEL], OWNER);
    assert.equal(spec.labels["verdict.run"], RUN.id, "the sweep after a killed process finds it");
    assert.deepEqual(spec.mounts, CLAUDE.mounts);
  }
  assert.deepEqual(sandbox.live(), [], "every probe container is removed, the failed one too");
});

Deno.test("images that all run the binary let the run go on, their probe containers removed", async () => {
  const sandbox = new MemorySandbox({ exec: glibcOnlyInPython });
  await requireRunnableImages(
    sandbox,
    CLAUDE,
    TASKS.filter((each) => each.manifest.image !== "verdict/busybox"),
    RUN,
    new AbortController().signal,
  );
  assert.equal(sandbox.containers().length, 1, "one image, one probe");
  assert.deepEqual(sandbox.live(), []);
});

Deno.test("an agent with no probe (a static binary, a command of one's own) starts no container", async () => {
  const sandbox = new MemorySandbox({ exec: glibcOnlyInPython });
  const signal = new AbortController().signal;
  await requireRunnableImages(
    sandbox,
    codexAgent(kit("codex", "codex", null), "scripted"),
    TASKS,
    RUN,
    signal,
  );
  await requireRunnableImages(sandbox, cmdAgent("true", null), TASKS, RUN, signal);
  assert.deepEqual(sandbox.operations, []);
});

Deno.test("a probe the engine cannot run still has its container removed", async () => {
  const sandbox = new MemorySandbox({
    exec: () => {
      throw new InfrastructureError("could not run a command: the engine went away");
    },
  });
  await assert.rejects(
    () => requireRunnableImages(sandbox, CLAUDE, TASKS, RUN, new AbortController().signal),
    InfrastructureError,
  );
  assert.equal(sandbox.containers().length, 1);
  assert.deepEqual(sandbox.live(), []);
});

Deno.test("an interrupted probe throws the abort reason and removes its container", async () => {
  const controller = new AbortController();
  const reason = new Error("interrupted");
  const sandbox = new MemorySandbox({
    exec: () => {
      controller.abort(reason);
    },
  });
  await assert.rejects(
    () => requireRunnableImages(sandbox, CLAUDE, TASKS, RUN, controller.signal),
    (error) => error === reason,
  );
  assert.deepEqual(sandbox.live(), []);
});

// On a run's engines (`--engine`), one of which may be another host's, nothing of this machine
// is mounted: the kit is copied into the probe's container, where the agent user may not change
// it; the probe then finds the binary where a mount would have put it.
Deno.test("with copies (a run over several engines), the probe mounts nothing and finds the kit copied in, root's", async () => {
  await using folder = await scratchDir("probe-kit");
  await Deno.mkdir(join(folder.path, "bin"));
  await Deno.writeTextFile(join(folder.path, "bin", "claude"), "#!/bin/sh\necho 2.1.332\n");
  await Deno.chmod(join(folder.path, "bin", "claude"), 0o700);
  const agent = claudeCodeAgent({
    ...kit("claude-code", "bin/claude", LOADER),
    folder: folder.path,
  }, "scripted");
  const seen: (MemoryNode | undefined)[] = [];
  const sandbox = new MemorySandbox({
    exec: ({ container }) => {
      seen.push(container.files.get("/verdict/kit/bin/claude"));
      return {};
    },
  });
  const python = TASKS.filter((each) => each.manifest.image === "verdict/python:3.11");
  await requireRunnableImages(
    sandbox,
    agent,
    python,
    { ...RUN, copies: true },
    new AbortController().signal,
  );
  const [start] = sandbox.operations.filter((operation) => operation.op === "start");
  assert.ok(start?.op === "start");
  assert.deepEqual(start.spec.mounts, []);
  assert.equal(seen.length, 1, "the probe ran once, after the copy");
  const binary = seen[0];
  assert.ok(binary?.type === "file", "the kit's binary is where the mount would put it");
  assert.equal(new TextDecoder().decode(binary.data), "#!/bin/sh\necho 2.1.332\n");
  assert.equal(binary.mode & 0o777, 0o755, "runnable by the agent user, writable by root only");
});
