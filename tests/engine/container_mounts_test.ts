import assert from "node:assert/strict";
import { join } from "node:path";
import { findLabelled, removeContainers, startContainer } from "../../src/engine/container.ts";
import { AGENT_USER } from "../../src/engine/sandbox.ts";
import { requireDocker } from "../_docker.ts";
import { scratchDir } from "../_verdict.ts";

Deno.test("a container gets its read-only mounts (a comma in the path too), its environment, and another's loopback", async () => {
  const docker = await requireDocker();
  await using scratch = await scratchDir("mounts");
  const folder = join(scratch.path, "agent, files");
  await Deno.mkdir(folder);
  await Deno.writeTextFile(join(folder, "hello.txt"), "hello\n");
  const label = `verdict.test=container_mounts_${crypto.randomUUID()}`;
  const labels = { [label.split("=")[0]]: label.split("=")[1] };
  try {
    const owner = await startContainer(docker, {
      image: "verdict/python:3.11",
      workdir: "/",
      network: "none",
      labels,
      user: AGENT_USER,
    });
    const listening = await owner.exec(
      `python3 -c 'import os, socket
s = socket.socket(); s.bind(("127.0.0.1", 8799)); s.listen(1)
if os.fork(): os._exit(0)
for fd in (0, 1, 2): os.dup2(os.open(os.devnull, os.O_RDWR), fd)
s.accept()'`,
      { timeoutMs: 20_000 },
    );
    assert.equal(listening.exitCode, 0, listening.stderr);
    const joined = await startContainer(docker, {
      image: "verdict/busybox",
      workdir: "/",
      network: `container:${owner.id}`,
      labels,
      user: AGENT_USER,
      mounts: [{ source: folder, target: "/verdict/agent", readOnly: true }],
      env: { GREETING: "hi there" },
    });
    const result = await joined.exec(
      'cat /verdict/agent/hello.txt; echo "$GREETING"; ls /sys/class/net; ' +
        "touch /verdict/agent/new 2>/dev/null && echo wrote || echo read-only; " +
        "nc -w 2 127.0.0.1 8799 </dev/null && echo reached",
      { timeoutMs: 20_000 },
    );
    assert.equal(result.stdout, "hello\nhi there\nlo\nread-only\nreached\n", result.stderr);
  } finally {
    await removeContainers(docker, (await findLabelled(docker, [label])).map(({ id }) => id));
  }
});
