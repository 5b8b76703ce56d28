/**
 * Before a run: an installed agent whose binary cannot run in a task's image (Claude Code, linked
 * against glibc, in a busybox image) is refused there and then, naming the image, its tasks and
 * what it lacks, rather than failing every trial of those tasks as the agent's fault. Each image
 * is tried once, in a throwaway container with the agent's mounts and no network, as the agent
 * user, labelled with the run it was claimed for (so the sweep after a killed process finds it).
 * With `copies` (a run over several engines), what the agent mounts is copied in instead.
 *
 * @module
 */
import { type InstalledAgent, mountsAsCopies } from "../../agent/cmd_agent.ts";
import { UsageError } from "../../core/errors.ts";
import type { Sandbox } from "../../engine/sandbox.ts";
import { type Task, tasksByImage } from "../../task/task.ts";
import { OWNER_LABEL } from "../trial/run_owner.ts";

const PROBE_TIMEOUT_MS = 60_000;

/**
 * Refuses the run when `agent`'s probe fails in any task's image.
 *
 * @throws {UsageError} naming each image that cannot run the agent, its tasks, what it lacks and
 * what the probe printed (exit 2).
 */
export async function requireRunnableImages(
  sandbox: Sandbox,
  agent: InstalledAgent,
  tasks: readonly Task[],
  run: { id: string; owner: string; copies?: boolean },
  signal: AbortSignal,
): Promise<void> {
  const probe = agent.probe;
  if (probe === undefined) return;
  const refused: string[] = [];
  for (const [image, ids] of tasksByImage(tasks)) {
    const container = await sandbox.start({
      image,
      workdir: "/",
      network: "none",
      labels: { "verdict.run": run.id, [OWNER_LABEL]: run.owner, "verdict.role": "probe" },
      mounts: run.copies ? [] : agent.mounts,
    }, signal);
    try {
      if (run.copies) {
        for (const tar of await mountsAsCopies(agent)) await container.copyIn(tar, "/");
      }
      const result = await container.exec(probe.command, {
        timeoutMs: PROBE_TIMEOUT_MS,
        signal,
        maxOutputBytes: 4096,
      });
      if (result.aborted) throw signal.reason;
      if (result.exitCode !== 0) {
        const said = `${result.stderr}${result.stdout}`.trim().replace(/\s+/g, " ").slice(0, 200);
        refused.push(
          `the image ${image} cannot run ${agent.name}, which needs ${probe.needs} ` +
            `('${probe.command}' exited ${result.exitCode}${said ? `: ${said}` : ""}); ` +
            `needed by ${ids.join(", ")}`,
        );
      }
    } finally {
      await container.remove();
    }
  }
  if (refused.length > 0) {
    throw new UsageError(
      `${refused.join("\n")}\nleave those tasks out (select the others with --task ID), or ` +
        `evaluate them with another agent`,
    );
  }
}
