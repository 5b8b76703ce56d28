/**
 * How a container's commands run and its files come out, chosen once when a `Container` is
 * wrapped: plain `docker exec` and `docker cp` (`_docker_exec.ts`), or the exec channels with
 * those as the fallback (`_channel_transport.ts`). Also what both share: the deadline and the kill
 * of a command's session.
 *
 * @module
 */
import { HELPER } from "./_helper.ts";
import { KILL_SESSION } from "./_shell_programs.ts";
import { within } from "./_within.ts";
import type { Docker } from "./docker.ts";
import type { ExecOptions, ExecResult } from "./sandbox.ts";
import type { TarEntry, TarEntryHeader } from "./tar.ts";

/** The container a transport serves. */
export interface TransportTarget {
  /** The docker CLI. */
  docker: Docker;
  /** The container id. */
  id: string;
  /** Where a command runs when it names no workdir. */
  workdir: string;
  /**
   * Copies the engine's helper in, once, when first asked (channel containers only); whether it
   * is in. A session is then killed by the helper's shell, never the container's own.
   */
  helper?: () => Promise<boolean>;
}

/** One way to run a container's commands and copy its files out. */
export interface Transport {
  /** Why its exec channel stopped working, when it has one that did. */
  readonly lost: string | undefined;
  /** Runs `script` as `user` with `SandboxContainer.exec`'s semantics. */
  exec(script: string, options: ExecOptions, user: string): Promise<ExecResult>;
  /** Copies `path` out as tar entries, with `SandboxContainer.copyOut`'s semantics. */
  copyOut(
    path: string,
    admit: ((entry: TarEntryHeader) => void) | undefined,
    timeoutMs: number,
  ): Promise<TarEntry[]>;
  /**
   * Kills, from inside, every process of `user` (the container's main user) and with them its
   * idle process, so that its init exits; whether it did. False when it has no way to (nothing
   * ran): the engine must stop the container.
   */
  stopProcesses(user: string): Promise<boolean>;
  /** Ends what it keeps open; the container is stopped or removed. */
  close(): Promise<void>;
}

/**
 * Calls `stop` at the command's deadline (for stdin that comes later, counted from its arrival),
 * or when its signal aborts (at once when it already has); the function returned disarms both.
 */
export function armDeadline(
  options: ExecOptions,
  stop: (reason: "timeout" | "abort") => void,
): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let disarmed = false;
  const arm = (ms: number) => {
    if (!disarmed) timer = setTimeout(() => stop("timeout"), ms);
  };
  // Stdin that never comes is closed empty: the command gets a short while to end on its own.
  if (options.later) options.later.then(({ timeoutMs }) => arm(timeoutMs), () => arm(10_000));
  else arm(options.timeoutMs);
  const onAbort = () => stop("abort");
  options.signal?.addEventListener("abort", onAbort, { once: true });
  if (options.signal?.aborted) onAbort();
  return () => {
    disarmed = true;
    clearTimeout(timer);
    options.signal?.removeEventListener("abort", onAbort);
  };
}

/**
 * Kills every process of a command's session ({@linkcode KILL_SESSION}, as `user`, in its own
 * `docker exec`) once the session's id is known (waiting at most ten seconds for it), then makes
 * sure the command's client has ended with `ensureEnded`.
 */
export async function killSession(
  target: TransportTarget,
  session: Promise<string | undefined>,
  user: string,
  ensureEnded: () => Promise<void>,
): Promise<void> {
  const pid = await within(session, 10_000, undefined);
  // The helper's shell when it is in: the container's own may be the agent's.
  const helper = await target.helper?.().catch(() => false);
  if (pid !== undefined) {
    await target.docker.run([
      "exec",
      `--user=${user}`,
      target.id,
      ...(helper ? [HELPER] : []),
      "sh",
      "-c",
      KILL_SESSION,
      "verdict-kill",
      pid,
    ], {
      timeoutMs: 30_000,
    }).catch(() => undefined);
  }
  await ensureEnded();
}
