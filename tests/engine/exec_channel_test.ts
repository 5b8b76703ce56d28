import assert from "node:assert/strict";
import { InfrastructureError } from "../../src/core/errors.ts";
import { type Container, startContainer } from "../../src/engine/container.ts";
import { AGENT_USER } from "../../src/engine/sandbox.ts";
import { sealEntries } from "../../src/workspace/snapshot.ts";
import { requireDocker } from "../_docker.ts";

const LABEL = { "verdict.test": "exec_channel_test" };

// The agent user's channel shell (not root's), found by the line only its script has.
const CHANNEL_PID = `for f in /proc/[0-9]*/cmdline; do
  p=\${f#/proc/}; p=\${p%/cmdline}
  [ "$(stat -c %u /proc/$p)" = 1000 ] && tr "\\0" " " < "$f" | grep -q "verdict-channel [r]eady" &&
    echo $p
done`;

async function withChannel(
  image: string,
  work: (container: Container) => Promise<void>,
): Promise<void> {
  const container = await startContainer(await requireDocker(), {
    image,
    workdir: "/workspace",
    network: "none",
    labels: LABEL,
    user: AGENT_USER,
    channel: true,
  });
  try {
    await work(container);
  } finally {
    await container.remove();
  }
}

async function channelPid(container: Container): Promise<string> {
  // As root: through `docker exec`, so the lookup does not run on the channel it looks for.
  const found = await container.exec(CHANNEL_PID, { timeoutMs: 10_000, user: "0:0" });
  return found.stdout.trim();
}

Deno.test("the channel answers as docker exec does: exit codes, stderr, env, workdir, $0", async () => {
  const script = 'echo "$0 $PWD $GREETING"; echo warn >&2; cd /; exit 7';
  const options = { timeoutMs: 10_000, env: { GREETING: "it's\nfine" }, workdir: "/tmp" };
  const plain = await startContainer(await requireDocker(), {
    image: "verdict/busybox",
    workdir: "/workspace",
    network: "none",
    labels: LABEL,
    user: AGENT_USER,
  });
  try {
    const viaDocker = await plain.exec(script, options);
    await withChannel("verdict/busybox", async (container) => {
      const viaChannel = await container.exec(script, options);
      assert.deepEqual(viaChannel, viaDocker);
      assert.deepEqual(
        [viaChannel.exitCode, viaChannel.stdout, viaChannel.stderr],
        [7, "sh /tmp it's\nfine\n", "warn\n"],
      );
      assert.notEqual(await channelPid(container), "", "the channel's shell is running");
      assert.equal(container.channelLost, undefined);
    });
  } finally {
    await plain.remove();
  }
});

Deno.test("the channel carries binary stdin byte for byte", async () => {
  await withChannel("verdict/python:3.11", async (container) => {
    const bytes = Uint8Array.from({ length: 512 }, (_, i) => (i * 7) % 256);
    const result = await container.exec("od -An -v -tu1 | tr -s ' \\n' ' '", {
      timeoutMs: 10_000,
      stdin: bytes,
    });
    assert.equal(result.exitCode, 0, result.stderr);
    assert.deepEqual(result.stdout.trim().split(" ").map(Number), [...bytes]);
  });
});

Deno.test("a command whose workdir is missing fails as an infrastructure error", async () => {
  await withChannel("verdict/busybox", async (container) => {
    await assert.rejects(
      () => container.exec("true", { timeoutMs: 10_000, workdir: "/no/such/folder" }),
      (error) => error instanceof InfrastructureError && /no such workdir/.test(error.message),
    );
    assert.equal((await container.exec("echo still", { timeoutMs: 10_000 })).stdout, "still\n");
  });
});

Deno.test("a command that kills the channel is reported, and later commands fall back to docker exec", async () => {
  await withChannel("verdict/busybox", async (container) => {
    await container.exec("true", { timeoutMs: 10_000 }); // the channel is up
    const pid = await channelPid(container);
    assert.match(pid, /^\d+$/);
    const killer = await container.exec(`kill -9 ${pid}; sleep 1; echo unreachable`, {
      timeoutMs: 10_000,
    });
    assert.equal(killer.exitCode, 137);
    assert.match(killer.stderr, /exec channel died while the command ran/);
    assert.match(container.channelLost ?? "", /channel's process ended/);
    const after = await container.exec("echo after; exit 4", { timeoutMs: 10_000 });
    assert.deepEqual([after.exitCode, after.stdout], [4, "after\n"]);
    assert.equal(await channelPid(container), "", "no channel runs any more");
  });
});

Deno.test("a channel killed between commands: the next command runs through docker exec, the loss is kept", async () => {
  await withChannel("verdict/busybox", async (container) => {
    await container.exec("true", { timeoutMs: 10_000 }); // the channel is up
    const pid = await channelPid(container);
    // The agent's uid without its group: through `docker exec`, and allowed to kill the channel.
    const killed = await container.exec(`kill -9 ${pid}`, { timeoutMs: 10_000, user: "1000" });
    assert.equal(killed.exitCode, 0, killed.stderr);
    const next = await container.exec("echo next", { timeoutMs: 10_000 });
    assert.deepEqual([next.exitCode, next.stdout], [0, "next\n"]);
    assert.match(container.channelLost ?? "", /ended/);
  });
});

Deno.test("a background child left running writes to no later command's output", async () => {
  await withChannel("verdict/busybox", async (container) => {
    const left = await container.exec(
      "(for i in 1 2 3 4 5 6 7 8 9 10; do echo noise; sleep 0.2; done) &",
      { timeoutMs: 10_000 },
    );
    assert.equal(left.exitCode, 0);
    for (let i = 0; i < 5; i++) {
      const quiet = await container.exec("sleep 0.1; echo quiet", { timeoutMs: 10_000 });
      assert.equal(quiet.stdout, "quiet\n");
    }
    assert.equal(container.channelLost, undefined);
  });
});

Deno.test("commands of another user, and concurrent commands, go through docker exec", async () => {
  await withChannel("verdict/busybox", async (container) => {
    const [slow, root] = await Promise.all([
      container.exec("sleep 1; id -u", { timeoutMs: 10_000 }),
      container.exec("id -u", { timeoutMs: 10_000, user: "0:0" }),
    ]);
    assert.deepEqual([slow.stdout, root.stdout], ["1000\n", "0\n"]);
    const both = await Promise.all([
      container.exec("sleep 1; echo one", { timeoutMs: 10_000 }),
      container.exec("echo two", { timeoutMs: 10_000 }),
    ]);
    assert.deepEqual(both.map((result) => result.stdout), ["one\n", "two\n"]);
  });
});

Deno.test("copies out through the root channel seal exactly as docker cp's, and fall back where root may not read", async () => {
  const docker = await requireDocker();
  const setup = "cd /workspace && mkdir -p a/b/empty && echo hi > a/x.txt && chmod +x a/x.txt && " +
    "ln -s x.txt a/link && ln a/x.txt hard && printf '\\001\\002' > bin && " +
    'echo l > "$(printf "n%.0s" $(seq 1 150))" && echo u > "é ü.txt"';
  for (const image of ["verdict/busybox", "verdict/python:3.11"]) {
    const roots: string[] = [];
    for (const channel of [true, false]) {
      const container = await startContainer(docker, {
        image,
        workdir: "/workspace",
        network: "none",
        labels: LABEL,
        user: AGENT_USER,
        channel,
      });
      try {
        await container.exec("mkdir -p /workspace && chown 1000:1000 /workspace", {
          timeoutMs: 10_000,
          user: "0:0",
        });
        const made = await container.exec(setup, { timeoutMs: 10_000 });
        assert.equal(made.exitCode, 0, made.stderr);
        // A channel's first copy is `docker cp`'s while root's channel starts; the second is the
        // channel's.
        await container.copyOut("/workspace");
        roots.push(sealEntries(await container.copyOut("/workspace"), "workspace").root);
        if (!channel) continue;
        // Root without capabilities cannot read this one: docker cp copies it instead.
        await container.exec("echo s > private && chmod 600 private", { timeoutMs: 10_000 });
        const sealed = sealEntries(await container.copyOut("/workspace"), "workspace");
        assert.ok(sealed.entries.some((entry) => entry.path === "private"), image);
        assert.equal(container.channelLost, undefined);
      } finally {
        await container.remove();
      }
    }
    assert.equal(roots[0], roots[1], `${image}: the channel's copy seals differently`);
  }
});

Deno.test("an agent that plants root's channel folder first gets docker cp's copies, not its own", async () => {
  await withChannel("verdict/busybox", async (container) => {
    await container.exec("mkdir -p /workspace && chown 1000:1000 /workspace", {
      timeoutMs: 10_000,
      user: "0:0",
    });
    const planted = await container.exec(
      // Every folder root's channel could take (its name holds its shell's pid).
      "cd /tmp && mkdir -m 777 $(seq 1 1000 | sed s/^/.verdict-exec-0-/) && " +
        "echo real > /workspace/a.txt",
      { timeoutMs: 10_000 },
    );
    assert.equal(planted.exitCode, 0, planted.stderr);
    const copies = [];
    for (let i = 0; i < 3; i++) {
      copies.push(sealEntries(await container.copyOut("/workspace"), "workspace"));
    }
    assert.deepEqual(copies.map((copy) => copy.root), Array(3).fill(copies[0].root));
    assert.deepEqual(copies[2].entries.map((entry) => entry.path), ["a.txt"]);
  });
});
