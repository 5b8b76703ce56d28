/**
 * Test helpers for a `verdict` process that is still running: its first lines, the run id it
 * names, and waiting for its containers.
 *
 * @module
 */
import { containersLabelled } from "../_docker.ts";
import type { Docker } from "../../src/engine/docker.ts";
import { type RunVerdictOptions, verdictCommand } from "../_verdict.ts";

/** A started CLI process. */
export interface LiveRun {
  /** The process. */
  child: Deno.ChildProcess;
  /** The run id its first line names. */
  run: string;
  /** Closes the reading end of its stdout, as `verdict ... | head -1` does after one line. */
  closeStdout(): Promise<void>;
  /** Waits for it to end; returns its exit code and everything it printed. */
  finish(): Promise<{ code: number; stdout: string; stderr: string }>;
}

/** Starts `verdict ARGS`, reads its first line and returns the run id it names. */
export async function startRun(args: string[], options: RunVerdictOptions = {}): Promise<LiveRun> {
  const child = verdictCommand(args, options).spawn();
  const stderr = new Response(child.stderr).text();
  const reader = child.stdout.getReader();
  const decoder = new TextDecoder();
  let stdout = "";
  while (!stdout.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`verdict ended before naming its run: ${stdout}${await stderr}`);
    stdout += decoder.decode(value, { stream: true });
  }
  const run = /^run ([\w-]+)/.exec(stdout)?.[1];
  if (run === undefined) throw new Error(`no run id in: ${stdout}`);
  let closed = false;
  return {
    child,
    run,
    closeStdout() {
      closed = true;
      return reader.cancel();
    },
    async finish() {
      while (!closed) {
        const { value, done } = await reader.read();
        if (done) break;
        stdout += decoder.decode(value, { stream: true });
      }
      const status = await child.status;
      return { code: status.code, stdout, stderr: await stderr };
    },
  };
}

/** Waits until at least `count` containers carry `label`. */
export async function waitForContainers(docker: Docker, label: string, count = 1): Promise<void> {
  for (let tries = 0; (await containersLabelled(docker, label)).length < count; tries++) {
    if (tries > 200) throw new Error(`no container labelled ${label} started`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
