/**
 * A tool call's round trip against a bare `docker exec`, measured in the same run: the loop
 * agent's `shell` tool running `true` through the tool layer (`shellTool.run` with the context the
 * loop gives it) in an agent container started as a trial starts one (`Sandbox.start` with the
 * trial's agent spec, `trialContainerSpec`), and `docker exec CONTAINER true` on the same
 * container, alternating, after a warm-up; on the busybox and the Python image. Prints the median
 * and p90 of each, their ratio, and whether issue 16's targets hold (median at most 10 ms, at
 * least 10 times faster than the bare exec). It reports; it does not fail on a missed target.
 * Run: `deno task bench`.
 *
 * @module
 */
import { stageTask } from "../src/eval/trial/staged_task.ts";
import { trialContainerSpec } from "../src/eval/trial/trial_scope.ts";
import { Docker } from "../src/engine/docker.ts";
import { DockerSandbox } from "../src/engine/docker_sandbox.ts";
import { loadTask } from "../src/task/load_task.ts";
import { shellTool } from "../src/tools/shell_tool.ts";
import type { ToolContext } from "../src/tools/tool.ts";
import { median, percentile } from "./_measure.ts";

const WARM_UP = 5;
const ROUNDS = 30;
const MEDIAN_TARGET_MS = 10;
const SPEEDUP_TARGET = 10;
/** A bundled task per image: its manifest gives the container its image and workdir. */
const TASKS = ["tasks/shell-count-errors", "tasks/fix-slugify"];

const docker = new Docker({ PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin" });
await docker.ping();
const sandbox = new DockerSandbox(docker);

async function bareExec(id: string): Promise<number> {
  const start = performance.now();
  const result = await new Deno.Command("docker", {
    args: ["exec", id, "true"],
    stdout: "null",
    stderr: "piped",
  }).output();
  const elapsed = performance.now() - start;
  if (!result.success) throw new Error(new TextDecoder().decode(result.stderr));
  return elapsed;
}

async function toolCall(context: ToolContext): Promise<number> {
  const start = performance.now();
  const result = await shellTool.run({ command: "true" }, context);
  const elapsed = performance.now() - start;
  if (result.isError || !result.content.startsWith("exit code 0")) {
    throw new Error(`shell ran 'true' and answered: ${result.content}`);
  }
  return elapsed;
}

for (const dir of TASKS) {
  const staged = await stageTask(await loadTask(dir));
  const { task } = staged;
  const plan = { run: "bench-exec-channel", session: task.id, staged, repeat: 0 };
  const container = await sandbox.start(trialContainerSpec(plan, "bench", "agent"));
  try {
    const context: ToolContext = {
      container,
      task,
      signal: new AbortController().signal,
      permits: () => true,
    };
    for (let i = 0; i < WARM_UP; i++) {
      await toolCall(context);
      await bareExec(container.id);
    }
    const tool: number[] = [];
    const bare: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      // Alternate which goes first, so that neither always follows the other.
      if (round % 2 === 0) {
        tool.push(await toolCall(context));
        bare.push(await bareExec(container.id));
      } else {
        bare.push(await bareExec(container.id));
        tool.push(await toolCall(context));
      }
    }
    const speedup = median(bare) / median(tool);
    const holds = median(tool) <= MEDIAN_TARGET_MS && speedup >= SPEEDUP_TARGET;
    console.log(
      `${task.manifest.image}: shell tool running 'true' median ${
        median(tool).toFixed(1)
      } ms, p90 ` +
        `${percentile(tool, 0.9).toFixed(1)} ms; bare docker exec true median ` +
        `${median(bare).toFixed(1)} ms, p90 ${percentile(bare, 0.9).toFixed(1)} ms ` +
        `(${ROUNDS} rounds); the tool call is ${speedup.toFixed(1)}x faster; targets ` +
        `(median <= ${MEDIAN_TARGET_MS} ms, >= ${SPEEDUP_TARGET}x): ${holds ? "hold" : "missed"}`,
    );
    if (container.channelLost !== undefined) {
      console.log(`  (its exec channel was lost, so commands fell back: ${container.channelLost})`);
    }
  } finally {
    await container.remove();
  }
}
