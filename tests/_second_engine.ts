/**
 * Test helper: a second Docker engine on this machine, standing in for another host: its own
 * socket, data root, exec root, pid file and network namespace, no bridge and no iptables rules,
 * and no images until a test gives it some. Stopped and removed with `await using`.
 *
 * @module
 */
import { join } from "node:path";
import { Docker } from "../src/engine/docker.ts";
import type { Results } from "../src/report/results.ts";
import { runVerdictInProcess } from "./cli/_in_process.ts";

/** A running second engine. */
export interface SecondEngine {
  /** Its `DOCKER_HOST` URL. */
  host: string;
  /** The docker CLI aimed at it. */
  docker: Docker;
  /** Stops it (as a lost host would be: its daemon stopped) and waits for it to exit. */
  stop(): Promise<void>;
  /** Stops it and removes its folders. */
  [Symbol.asyncDispose](): Promise<void>;
}

/**
 * Starts a second dockerd, its folders in a new folder under `parent` (default the system's temp
 * folder: a Unix socket's path must stay short); fails naming the log when it does not answer
 * within 30 s.
 */
export async function startSecondEngine(parent?: string): Promise<SecondEngine> {
  const root = await Deno.makeTempDir({ dir: parent, prefix: "verdict-engine-" });
  const host = `unix://${join(root, "docker.sock")}`;
  // In a network namespace of its own: a daemon without a bridge deletes the host's docker0 when
  // it starts (moby removes the default bridge it is told not to use), which would cut every
  // container the first engine starts on its default network.
  const daemon = new Deno.Command("unshare", {
    args: [
      "--net",
      "dockerd",
      `--host=${host}`,
      `--data-root=${join(root, "data")}`,
      `--exec-root=${join(root, "exec")}`,
      `--pidfile=${join(root, "docker.pid")}`,
      "--bridge=none",
      "--iptables=false",
      "--ip-masq=false",
      "--log-level=warn",
      // Stopped as a lost host would be: at once, not after waiting on its containers.
      "--shutdown-timeout=1",
    ],
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const log = await Deno.open(join(root, "dockerd.log"), { write: true, create: true });
  daemon.stderr.pipeTo(log.writable).catch(() => {});
  const docker = new Docker({ PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", DOCKER_HOST: host });
  let stopped: Promise<void> | undefined;
  const stop = () =>
    stopped ??= (async () => {
      try {
        daemon.kill("SIGTERM");
      } catch { /* already gone */ }
      await daemon.status;
    })();
  const answers = () => docker.run(["version"]).then((result) => result.code === 0, () => false);
  for (let waited = 0; !await answers(); waited += 100) {
    if (waited > 30_000) {
      await stop();
      throw new Error(`a second dockerd did not answer within 30 s: see ${root}/dockerd.log`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    host,
    docker,
    stop,
    async [Symbol.asyncDispose]() {
      await stop();
      await Deno.remove(root, { recursive: true }).catch(() => {});
    },
  };
}

/**
 * Watches an engine's running containers until stopped; returns each one's mounts as
 * `docker inspect` shows them (`[]` for none), one JSON list per sighting.
 */
export function watchMounts(engine: SecondEngine): { stop(): Promise<string[]> } {
  const mounts: string[] = [];
  let watching = true;
  const watch = (async () => {
    while (watching) {
      const listed = await engine.docker.run(["ps", "-q"]);
      const ids = new TextDecoder().decode(listed.stdout).split("\n").filter(Boolean);
      for (const id of ids) {
        const inspected = await engine.docker.run(["inspect", "--format", "{{json .Mounts}}", id]);
        if (inspected.code === 0) mounts.push(new TextDecoder().decode(inspected.stdout).trim());
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  return {
    async stop() {
      watching = false;
      await watch;
      return mounts;
    },
  };
}

/** This machine's engine, as the tests' `--engine` names it (engine a). */
export const MAIN_ENGINE: string = Deno.env.get("DOCKER_HOST") ?? "unix:///var/run/docker.sock";

/** `--engine` flags for this machine's engine and `engine`, `slots` each. */
export function bothEngines(engine: SecondEngine, slots: number): string[] {
  return ["--engine", `${MAIN_ENGINE}=${slots}`, "--engine", `${engine.host}=${slots}`];
}

/** The engine `verdict show` names for each trial of `results` (undefined where none). */
export async function trialEngines(
  results: Results,
  home: string,
): Promise<(string | undefined)[]> {
  return await Promise.all(results.trials.map(async (trial) => {
    const shown = await runVerdictInProcess(["show", trial.session, "--home", home]);
    return shown.stdout.match(/^engine: (.*)$/m)?.[1];
  }));
}
