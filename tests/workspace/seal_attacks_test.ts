import assert from "node:assert/strict";
import { type ContainerSeal, sealContainer } from "../../src/workspace/container_seal.ts";
import { DockerSandbox } from "../../src/engine/docker_sandbox.ts";
import type { ContainerSpec, SandboxContainer } from "../../src/engine/sandbox.ts";
import { sealEntries } from "../../src/workspace/snapshot.ts";
import { requireDocker } from "../_docker.ts";
import { ATTACKS } from "./_seal_attacks.ts";

const LABEL = { "verdict.test": "seal-attacks" };

async function started(spec: Partial<ContainerSpec>): Promise<SandboxContainer> {
  const sandbox = new DockerSandbox(await requireDocker());
  return await sandbox.start({
    image: "verdict/python:3.11",
    workdir: "/root",
    network: "none",
    labels: LABEL,
    user: "0:0",
    capabilities: "engine-default",
    channel: true,
    ...spec,
  });
}

async function attacked(container: SandboxContainer, attack: string, work: string) {
  // Silent: with its own tools gone, the agent's own channel may not bring output back.
  const result = await container.exec(`{ echo honest > ${work} && ${attack}; } >/dev/null 2>&1`, {
    timeoutMs: 30_000,
  });
  assert.equal(result.exitCode, 0, result.stderr);
}

function text(seal: ContainerSeal["sealed"], path: string): string | undefined {
  const found = seal.entries.find((entry) => entry.path === path);
  return found?.type === "file"
    ? new TextDecoder().decode(seal.contents.get(found.sha256))
    : undefined;
}

// An untouched seal takes about a second; a seal that ran an agent's hanging tool took 120 s.
const BOUND_MS = 20_000;

for (const [name, attack] of Object.entries(ATTACKS)) {
  Deno.test(`whole-container seal: an agent that does "${name}" is sealed, quickly`, async () => {
    const container = await started({});
    try {
      await attacked(container, attack, "/root/work.txt");
      const checkpointStart = performance.now();
      const checkpoint = await sealContainer(container, undefined, { final: false });
      const checkpointMs = performance.now() - checkpointStart;
      assert.equal(text(checkpoint.sealed, "root/work.txt"), "honest\n");
      const start = performance.now();
      const { sealed, changes } = await sealContainer(container);
      const sealMs = performance.now() - start;
      assert.equal(text(sealed, "root/work.txt"), "honest\n");
      assert.ok(changes.some((change) => change.path === "root/work.txt"));
      if (name === "replace sealed folders with files") {
        // A folder replaced by a file is sealed as that file.
        assert.equal(text(sealed, "etc/apt"), "file\n");
        assert.equal(text(sealed, "usr/local/share"), "file\n");
      }
      assert.ok(checkpointMs < BOUND_MS, `the checkpoint took ${checkpointMs.toFixed(0)} ms`);
      assert.ok(sealMs < BOUND_MS, `the seal took ${sealMs.toFixed(0)} ms`);
    } finally {
      await container.remove();
    }
  });
}

Deno.test("workspace copies: an agent that owns its container's tools cannot stall or break a checkpoint", async () => {
  // An image whose tools the agent user may replace (say, one chowned to it).
  const attacks = [
    ATTACKS["delete tar, cp, mkdir, head, bash and sh"],
    ATTACKS["plant hanging tar, sh and head wrappers on PATH"],
    ATTACKS["replace the tools themselves with hanging ones"],
    "cd /tmp && touch $(seq -f .verdict-exec-0-%g 1 1000)",
  ];
  for (const attack of attacks) {
    const container = await started({ workdir: "/workspace", user: "1000:1000" });
    try {
      const made = await container.exec(
        "chmod 777 /usr/bin /usr/local/bin && chmod 777 /usr/bin/tar /usr/bin/head",
        { timeoutMs: 30_000, user: "0:0" },
      );
      assert.equal(made.exitCode, 0, made.stderr);
      await attacked(container, attack, "/workspace/work.txt");
      const start = performance.now();
      // The first copy opens root's channel while the engine copies; the second goes through it.
      for (let copy = 0; copy < 2; copy++) {
        const sealed = sealEntries(await container.copyOut("/workspace"), "workspace");
        assert.equal(text(sealed, "work.txt"), "honest\n", attack);
      }
      const elapsed = performance.now() - start;
      assert.ok(elapsed < BOUND_MS, `${attack}: the copies took ${elapsed.toFixed(0)} ms`);
    } finally {
      await container.remove();
    }
  }
});
