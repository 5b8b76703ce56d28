/**
 * A command started before its stdin is ready (`later`), as graders are while the end state is
 * sealed: its deadline counts from when the stdin arrives, and stdin that never comes runs
 * nothing it was meant for.
 */
import assert from "node:assert/strict";
import { startContainer } from "../../src/engine/container.ts";
import { AGENT_USER, type LaterInput } from "../../src/engine/sandbox.ts";
import { packTar } from "../../src/engine/tar.ts";
import { requireDocker } from "../_docker.ts";

async function started(image = "verdict/busybox") {
  return await startContainer(await requireDocker(), {
    image,
    workdir: "/workspace",
    network: "none",
    labels: { "verdict.test": "later_input_test" },
    user: AGENT_USER,
  });
}

const after = (ms: number, input: LaterInput) =>
  new Promise<LaterInput>((resolve) => setTimeout(() => resolve(input), ms));

for (const image of ["verdict/busybox", "verdict/python:3.11"]) {
  Deno.test(`a command's deadline counts from when its later stdin arrives, not from its start (${image})`, async () => {
    const container = await started(image);
    try {
      const tar = packTar([{
        path: "answer.txt",
        type: "file",
        mode: 0o644,
        data: new TextEncoder().encode("yes\n"),
      }]);
      // Armed at the start, 1,000 ms would end the command before its tar came at 1,500 ms.
      const result = await container.unpackAndExec(
        after(1_500, { stdin: tar, timeoutMs: 1_000 }),
        "cat answer.txt",
        { timeoutMs: 1 },
      );
      assert.equal(result.timedOut, false);
      assert.equal(result.unpacked, true);
      assert.equal(result.stdout, "yes\n");
      const late = await container.exec("cat > /dev/null; sleep 5", {
        timeoutMs: 60_000,
        later: after(100, { stdin: new Uint8Array(), timeoutMs: 500 }),
      });
      assert.equal(late.timedOut, true, "the deadline that came with the stdin holds");
    } finally {
      await container.remove();
    }
  });
}

Deno.test("a later stdin that never comes closes the command's stdin: it unpacks nothing, runs nothing, and the exec throws why", async () => {
  const container = await started("verdict/python:3.11"); // its sh finds `tar` on PATH
  try {
    // A `tar` that takes an empty stdin for an empty archive (libarchive's does) must not matter.
    const fake = await container.exec(
      "mkdir /tmp/bin && printf 'exit 0\\n' > /tmp/bin/tar && chmod +x /tmp/bin/tar",
      { timeoutMs: 10_000 },
    );
    assert.equal(fake.exitCode, 0, fake.stderr);
    const why = new Error("the end state could not be sealed");
    await assert.rejects(
      () =>
        container.unpackAndExec(Promise.reject(why), "touch ran", {
          timeoutMs: 10_000,
          env: { PATH: "/tmp/bin:/bin:/usr/bin" },
        }),
      (error) => error === why,
    );
    const listed = await container.exec("ls -A", { timeoutMs: 10_000 });
    assert.equal(listed.stdout, "", "the command ran, or something was unpacked");
  } finally {
    await container.remove();
  }
});
