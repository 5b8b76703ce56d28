// A Harbor task's containers: how they run, and how a checkpoint of one is put back.
import { InfrastructureError } from "../../core/errors.ts";
import { shellQuote } from "../../core/shell_quote.ts";
import { DEFAULT_LIMITS } from "../../engine/container.ts";
import type { ContainerSpec, SandboxContainer } from "../../engine/sandbox.ts";
import type { Snapshot } from "../../workspace/snapshot.ts";
import { packOwnedTar, type TarEntry } from "../../engine/tar.ts";
import type { HarborSettings } from "../../task/task.ts";

/**
 * A Harbor task's containers run as root with the engine's default capabilities, as the tasks
 * were written for (Harbor runs them so), within the task's CPU and memory.
 */
export function harborContainer(harbor: HarborSettings): Partial<ContainerSpec> {
  const { cpus, memoryMb } = harbor.environment;
  return {
    user: "0:0",
    capabilities: "engine-default",
    limits: {
      ...DEFAULT_LIMITS,
      ...(cpus ? { cpus } : {}),
      ...(memoryMb ? { memoryMb } : {}),
    },
  };
}

/**
 * A Harbor task's checkpoint (a whole-container seal) applied to a new container of its image: the
 * deleted paths deleted, the rest copied in, root's.
 */
export async function applyContainerSeal(
  container: SandboxContainer,
  contents: TarEntry[],
  snapshot: Snapshot,
): Promise<void> {
  const removed = snapshot.entries.filter((entry) => entry.type === "removed");
  if (removed.length > 0) {
    const deleted = await container.exec(
      `rm -rf -- ${removed.map((entry) => shellQuote(`/${entry.path}`)).join(" ")}`,
      { user: "0:0", timeoutMs: 60_000 },
    );
    if (deleted.exitCode !== 0) {
      throw new InfrastructureError(`could not restore a checkpoint: ${deleted.stderr.trim()}`);
    }
  }
  if (contents.length > 0) {
    await container.copyIn(packOwnedTar([{ entries: contents, options: { uid: 0, gid: 0 } }]), "/");
  }
}
