import assert from "node:assert/strict";
import { AGENT_USER } from "../../src/engine/sandbox.ts";
import { type Container, startContainer } from "../../src/engine/container.ts";
import { diffSnapshots, sealEntries } from "../../src/workspace/snapshot.ts";
import { packTar } from "../../src/engine/tar.ts";
import { Docker } from "../../src/engine/docker.ts";
import { containersLabelled, dockerEnv, requireDocker } from "../_docker.ts";

const LABEL = { "verdict.test": "container_test" };

async function withContainer(
  image: string,
  work: (container: Container) => Promise<void>,
  user: string | undefined = AGENT_USER,
  channel = false,
): Promise<void> {
  const docker = await requireDocker();
  const container = await startContainer(docker, {
    image,
    workdir: "/workspace",
    network: "none",
    labels: LABEL,
    user,
    channel,
  });
  try {
    await work(container);
  } finally {
    await container.remove();
  }
}

Deno.test("containers are hardened: unprivileged, no capabilities, no network, labelled", async () => {
  await withContainer("verdict/python:3.11", async (container) => {
    const result = await container.exec(
      "id -u; grep CapEff /proc/self/status; grep NoNewPrivs /proc/self/status; " +
        "ls /sys/class/net; cat /sys/fs/cgroup/pids/pids.max 2>/dev/null || cat /sys/fs/cgroup/pids.max",
      { timeoutMs: 10_000 },
    );
    assert.equal(result.exitCode, 0, result.stderr);
    const [uid, capabilities, noNewPrivs, ...rest] = result.stdout.trim().split("\n");
    assert.equal(uid, "1000");
    assert.match(capabilities, /CapEff:\s+0000000000000000/);
    assert.match(noNewPrivs, /NoNewPrivs:\s+1/);
    assert.deepEqual(rest.slice(0, -1), ["lo"], "only the loopback interface");
    assert.equal(rest.at(-1), "256");
    const docker = await requireDocker();
    const labelled = await containersLabelled(docker, "verdict.test=container_test");
    assert.ok(labelled.some((id) => container.id.startsWith(id)));
  });
});

for (const channel of [false, true]) {
  const via = channel ? "exec channel" : "docker exec";
  Deno.test(`${via}: a command that outlives its timeout is killed with everything it started`, async () => {
    for (const image of ["verdict/busybox", "verdict/python:3.11"]) {
      await withContainer(
        image,
        async (container) => {
          const result = await container.exec(
            "(sleep 31; echo bg > background.txt) & sleep 31; echo late > late.txt",
            { timeoutMs: 1000 },
          );
          assert.equal(result.timedOut, true);
          // Due two seconds in, well before the check: this one fails the check if the kill misses it.
          const soon = await container.exec(
            "(sleep 2; echo bg > soon-background.txt) & sleep 2; echo late > soon-late.txt",
            { timeoutMs: 1000 },
          );
          assert.equal(soon.timedOut, true);
          await new Promise((resolve) => setTimeout(resolve, 4000));
          const files = await container.exec("ls -A", { timeoutMs: 10_000 });
          assert.equal(files.stdout, "", `${image}: files written after the deadline`);
          const processes = await container.exec(
            // Each process's argv on a line; the marker is computed so this script does not match.
            'for f in /proc/[0-9]*/cmdline; do tr "\\0" " " < "$f"; echo; done | grep -x "sleep $((30 + 1)) " || true',
            { timeoutMs: 10_000 },
          );
          assert.equal(processes.stdout.trim(), "", `${image}: a process survived`);
        },
        AGENT_USER,
        channel,
      );
    }
  });
}

for (const channel of [false, true]) {
  const via = channel ? "exec channel" : "docker exec";
  Deno.test(`${via}: stop ends what a command left running in the background, so nothing edits the workspace after it`, async () => {
    await withContainer(
      "verdict/busybox",
      async (container) => {
        const left = await container.exec(
          "setsid sh -c 'sleep 1; echo late > late.txt' >/dev/null 2>&1 < /dev/null &",
          { timeoutMs: 10_000 },
        );
        assert.equal(left.exitCode, 0, left.stderr);
        const kills = await engineKills(container.id, () => container.stop());
        // The channel stops it from inside: no `docker kill` on the way to the seal.
        assert.equal(kills, channel ? 0 : 1);
        assert.equal(await containerState(container.id), "exited");
        await assertNothingWrittenLate(container);
      },
      AGENT_USER,
      channel,
    );
  });
}

Deno.test("exec channel: an agent that killed the channel and left a writer behind is stopped by the engine", async () => {
  await withContainer(
    "verdict/busybox",
    async (container) => {
      // The command's parent is the channel's shell: killing it leaves no channel to stop with.
      await container.exec(
        "setsid sh -c 'sleep 1; echo late > late.txt' >/dev/null 2>&1 < /dev/null & kill -KILL $PPID",
        { timeoutMs: 10_000 },
      );
      assert.ok(container.channelLost, "the channel is gone");
      assert.equal(await engineKills(container.id, () => container.stop()), 1);
      assert.equal(await containerState(container.id), "exited");
      await assertNothingWrittenLate(container);
    },
    AGENT_USER,
    true,
  );
});

Deno.test("containers removed at once go in one docker rm; one already gone is no error", async () => {
  await requireDocker();
  const calls: string[][] = [];
  const docker = new (class extends Docker {
    override spawn(args: readonly string[], options?: { stdin?: boolean; signal?: AbortSignal }) {
      calls.push([...args]);
      return super.spawn(args, options);
    }
  })(dockerEnv());
  const spec = { image: "verdict/busybox", workdir: "/", network: "none" as const, labels: LABEL };
  const [a, b, gone] = await Promise.all([1, 2, 3].map(() => startContainer(docker, spec)));
  await gone.remove();
  calls.length = 0;
  await Promise.all([a, b, gone].map((container) => container.remove()));
  assert.deepEqual(calls.map((args) => args.slice(0, 3)), [["rm", "--force", "--volumes"]]);
  assert.deepEqual(calls[0].slice(3).sort(), [a.id, b.id, gone.id].sort());
  const left = await containersLabelled(await requireDocker(), "verdict.test=container_test");
  assert.ok(!left.some((id) => a.id.startsWith(id) || b.id.startsWith(id)), "both removed");
});

Deno.test("a start aborted at any moment leaves no container behind", async () => {
  const docker = await requireDocker();
  const label = `verdict.test=aborted-start-${crypto.randomUUID().slice(0, 8)}`;
  const [key, value] = label.split("=");
  for (const delayMs of [0, 20, 60, 120, 200, 300]) {
    const controller = new AbortController();
    const starting = startContainer(docker, {
      image: "verdict/busybox",
      workdir: "/",
      network: "none",
      labels: { [key]: value },
    }, controller.signal);
    setTimeout(() => controller.abort(new Error("stop")), delayMs);
    // One that finished before the abort is the caller's, as it would be without one.
    await starting.then((container) => container.remove(), () => undefined);
  }
  assert.deepEqual(await containersLabelled(docker, label), []);
});

// The writer left behind was due a second after it started: after 2.5 s, its file would be there.
async function assertNothingWrittenLate(container: Container): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 2500));
  const paths = (await container.copyOut("/workspace")).map((entry) => entry.path);
  assert.ok(!paths.some((path) => path.endsWith("late.txt")), paths.join(" "));
}

// How many `docker kill` calls the engine saw for container `id` while `work` ran (its events).
async function engineKills(id: string, work: () => Promise<void>): Promise<number> {
  const docker = await requireDocker();
  const since = (Date.now() / 1000 - 0.5).toFixed(3);
  await work();
  const until = (Date.now() / 1000 + 0.5).toFixed(3);
  const events = await docker.text([
    "events",
    "--since",
    since,
    "--until",
    until,
    "--filter",
    "event=kill",
    "--filter",
    `container=${id}`,
    "--format",
    "{{.ID}}",
  ]);
  return events.split("\n").filter((line) => line !== "").length;
}

async function containerState(id: string): Promise<string> {
  const docker = await requireDocker();
  for (let tries = 0; tries < 50; tries++) {
    const state = (await docker.text(["inspect", "--format", "{{.State.Status}}", id])).trim();
    if (state !== "running") return state;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return "running";
}

for (const channel of [false, true]) {
  const via = channel ? "exec channel" : "docker exec";
  Deno.test(`${via}: output, exit codes and stdin pass through; huge output keeps its head and tail`, async () => {
    await withContainer(
      "verdict/busybox",
      async (container) => {
        const echo = await container.exec("cat; echo oops >&2; exit 3", {
          timeoutMs: 10_000,
          stdin: new TextEncoder().encode("from stdin"),
        });
        assert.deepEqual([echo.exitCode, echo.stdout, echo.stderr], [3, "from stdin", "oops\n"]);
        const big = await container.exec(
          "echo FIRST; yes filler | head -c 3000000; echo; echo LAST",
          {
            timeoutMs: 20_000,
            maxOutputBytes: 64 * 1024,
          },
        );
        assert.ok(big.stdout.startsWith("FIRST") && big.stdout.trimEnd().endsWith("LAST"));
        assert.match(big.stdout, /\[\.\.\. \d+ bytes dropped \.\.\.\]/);
        assert.ok(big.stdout.length < 70 * 1024);
      },
      AGENT_USER,
      channel,
    );
  });

  Deno.test(`${via}: an aborted command is killed and reported as aborted`, async () => {
    await withContainer(
      "verdict/busybox",
      async (container) => {
        const controller = new AbortController();
        setTimeout(() => controller.abort(new Error("stop")), 500);
        const result = await container.exec("sleep 30", {
          timeoutMs: 60_000,
          signal: controller.signal,
        });
        assert.equal(result.aborted, true);
        assert.equal(result.timedOut, false);
      },
      AGENT_USER,
      channel,
    );
  });
}

Deno.test("copying in and sealing out round-trips to the same root", async () => {
  await withContainer("verdict/busybox", async (container) => {
    const entries = [
      { path: "src", type: "dir" as const, mode: 0o755 },
      {
        path: "src/tool.sh",
        type: "file" as const,
        mode: 0o755,
        data: new TextEncoder().encode("#!/bin/sh\n"),
      },
      {
        path: "src/data.bin",
        type: "file" as const,
        mode: 0o644,
        data: new Uint8Array([0, 1, 2, 255]),
      },
      { path: "keep", type: "dir" as const, mode: 0o700 },
      { path: "latest", type: "symlink" as const, target: "src/tool.sh" },
    ];
    const staged = sealEntries(entries);
    const tar = packTar([
      { path: "workspace", type: "dir", mode: 0o755 },
      ...entries.map((entry) => ({ ...entry, path: `workspace/${entry.path}` })),
    ], { uid: 1000, gid: 1000 });
    await container.copyIn(tar, "/");
    const sealed = sealEntries(await container.copyOut("/workspace"), "workspace");
    assert.deepEqual(sealed.entries, staged.entries);
    assert.equal(sealed.root, staged.root);
    const owner = await container.exec("stat -c %u:%g src/tool.sh", { timeoutMs: 10_000 });
    assert.equal(owner.stdout.trim(), "1000:1000", "staged files belong to the agent user");
  });
});

Deno.test("the seal sees a chmod +x, a new symlink, an empty folder and a one-byte binary change", async () => {
  await withContainer("verdict/busybox", async (container) => {
    const tar = packTar([
      { path: "workspace", type: "dir", mode: 0o755 },
      {
        path: "workspace/run.sh",
        type: "file",
        mode: 0o644,
        data: new TextEncoder().encode("echo\n"),
      },
      { path: "workspace/blob.bin", type: "file", mode: 0o644, data: new Uint8Array(4096).fill(9) },
    ], { uid: 1000, gid: 1000 });
    await container.copyIn(tar, "/");
    const before = sealEntries(await container.copyOut("/workspace"), "workspace");
    const change = await container.exec(
      "chmod +x run.sh && ln -s run.sh alias && mkdir empty && printf '\\010' | dd of=blob.bin bs=1 seek=2000 conv=notrunc 2>/dev/null",
      { timeoutMs: 10_000 },
    );
    assert.equal(change.exitCode, 0, change.stderr);
    await container.stop();
    const after = sealEntries(await container.copyOut("/workspace"), "workspace");
    assert.notEqual(after.root, before.root);
    assert.deepEqual(diffSnapshots(before, after), [
      { path: "alias", change: "added" },
      { path: "blob.bin", change: "modified", aspects: ["content"] },
      { path: "empty", change: "added" },
      { path: "run.sh", change: "modified", aspects: ["mode"] },
    ]);
  });
});

Deno.test("a missing image is an infrastructure error naming the image and the build script", async () => {
  const docker = await requireDocker();
  await assert.rejects(
    startContainer(docker, {
      image: "verdict/no-such-image:1",
      workdir: "/workspace",
      network: "none",
      labels: LABEL,
    }),
    (error: Error) => {
      assert.equal(error.name, "InfrastructureError");
      assert.match(
        error.message,
        /image verdict\/no-such-image:1 is missing: build it with scripts\/build-images\.sh/,
      );
      return true;
    },
  );
});
