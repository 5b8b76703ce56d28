import assert from "node:assert/strict";
import { InfrastructureError } from "../../src/core/errors.ts";
import { findLabelled, removeContainers } from "../../src/engine/container.ts";
import { requireDocker } from "../_docker.ts";

Deno.test("a docker call past its deadline throws 'did not finish within', even when docker outlives a SIGTERM", async () => {
  const docker = await requireDocker();
  // `docker run` passes a SIGTERM on to its container (where `sleep` ignores it) and keeps waiting.
  const label = `verdict.test=docker_timeout_${crypto.randomUUID()}`;
  const started = performance.now();
  try {
    await assert.rejects(
      docker.run(["run", "--rm", "--label", label, "verdict/busybox", "sleep", "30"], {
        timeoutMs: 500,
      }),
      (error) =>
        error instanceof InfrastructureError &&
        error.message === "docker run did not finish within 0.5 s",
    );
    // Well before the container's 30 s (about 1 s on a quiet machine): it did not wait for it.
    assert.ok(performance.now() - started < 15_000, "the call ended at its deadline");
  } finally {
    await removeContainers(docker, (await findLabelled(docker, [label])).map(({ id }) => id));
  }
});
