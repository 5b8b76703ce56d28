/**
 * One Docker container: started hardened (an unprivileged user, every capability dropped,
 * `no-new-privileges`, an init process, limits on processes, memory and CPU, a size-limited `/tmp`,
 * no network unless the task asks), commands run in it with a deadline that kills the command's
 * whole process tree, and files copied in and out as tar streams (bind-mounted from the host only
 * where the spec names a mount: an installed agent's own files, read-only, and a gateway's socket).
 *
 * How its commands run and its files come out is a transport chosen once, when the container is
 * wrapped: plain `docker exec` and `docker cp` (`_docker_exec.ts`), or the exec channels falling
 * back on those (`_channel_transport.ts`). The shell programs it runs are in `_shell_programs.ts`.
 *
 * @module
 */
import { ChannelTransport, type ContainerChannels } from "./_channel_transport.ts";
import { DockerExecTransport, readDockerTar } from "./_docker_exec.ts";
import { ExecChannel } from "./_exec_channel.ts";
import { HELPER, installHelper } from "./_helper.ts";
import { killQuietly } from "./_kill_quietly.ts";
import { removeBatched } from "./_removal_batch.ts";
import {
  KILL_OTHERS_AND_ARCHIVE,
  reportRead,
  thenReport,
  UNPACKED_MARK,
  unpackFrom,
} from "./_shell_programs.ts";
import type { Transport } from "./_transport.ts";
import { InfrastructureError } from "../core/errors.ts";
import { type Docker, firstLine } from "./docker.ts";
import { parseDockerDiff } from "./docker_diff.ts";
import {
  AGENT_USER,
  type AttachedProcess,
  type BindMount,
  type ContainerSpec,
  type ExecOptions,
  type ExecResult,
  type FilesystemChange,
  type LabelledContainer,
  type LaterInput,
  type ResourceLimits,
  type SandboxContainer,
  type UnpackedExecResult,
  type UnpackExecOptions,
} from "./sandbox.ts";
import { missingImageMessage } from "./image_messages.ts";
import type { TarEntry, TarEntryHeader } from "./tar.ts";

export type { ContainerChannels };

/** Default limits: enough for a test suite, small enough that a fork bomb stays contained. */
export const DEFAULT_LIMITS: ResourceLimits = { pids: 256, memoryMb: 1024, cpus: 1, tmpMb: 512 };

const ROOT = "0:0";

/**
 * Starts a container that idles until commands are run in it.
 *
 * @example
 * ```ts
 * import { Docker } from "./docker.ts";
 * import { startContainer } from "./container.ts";
 * import { AGENT_USER } from "./sandbox.ts";
 * const docker = new Docker({ PATH: "/usr/bin:/bin" });
 * const container = await startContainer(docker, {
 *   image: "verdict/busybox", workdir: "/workspace", network: "none", labels: {}, user: AGENT_USER,
 * });
 * console.log((await container.exec("echo hi", { timeoutMs: 5000 })).stdout);
 * await container.remove();
 * ```
 * @throws {InfrastructureError} when the image is missing or the engine refuses.
 */
export async function startContainer(
  docker: Docker,
  spec: ContainerSpec,
  signal?: AbortSignal,
): Promise<Container> {
  const limits = spec.limits ?? DEFAULT_LIMITS;
  const args = [
    "run",
    "--detach",
    "--pull=never",
    "--init",
    `--network=${spec.network}`,
    ...(spec.capabilities === "engine-default" ? [] : ["--cap-drop=ALL"]),
    "--security-opt=no-new-privileges",
    `--pids-limit=${limits.pids}`,
    `--memory=${limits.memoryMb}m`,
    `--memory-swap=${limits.memoryMb}m`,
    `--cpus=${limits.cpus}`,
    `--tmpfs=/tmp:rw,exec,nosuid,nodev,size=${limits.tmpMb}m,mode=1777`,
    `--workdir=${spec.workdir}`,
    ...(spec.user ? [`--user=${spec.user}`] : []),
    ...(spec.mounts ?? []).map(mountOption),
    ...Object.entries(spec.env ?? {}).flatMap(([key, value]) => ["--env", `${key}=${value}`]),
    ...Object.entries(spec.labels).flatMap(([key, value]) => ["--label", `${key}=${value}`]),
    spec.image,
    "sleep",
    "infinity",
  ];
  signal?.throwIfAborted();
  // Never cut short: a `docker run` killed half-way can leave a container nobody knows the id of.
  const result = await docker.run(args);
  if (signal?.aborted) {
    if (result.code === 0) await removeContainers(docker, [decodeId(result.stdout)]);
    throw signal.reason;
  }
  if (result.code !== 0) {
    if (/No such image|not found|pull access denied|manifest unknown/i.test(result.stderr)) {
      throw new InfrastructureError(missingImageMessage(spec.image));
    }
    throw new InfrastructureError(
      `could not start a container from ${spec.image}: ${firstLine(result.stderr)}`,
    );
  }
  const id = decodeId(result.stdout);
  if (!spec.channel) return new Container(docker, id, spec);
  const user = spec.user ?? AGENT_USER;
  // The helper goes in when first needed (root's channel runs on it, a stuck session is killed
  // with it): an agent that is never checkpointed and never times out costs no copy.
  let installed: Promise<boolean> | undefined;
  const helper = () => installed ??= installHelper(docker, id);
  return new Container(docker, id, spec, {
    commands: ExecChannel.open(docker, id, user),
    helper,
    root: async () => await helper() ? ExecChannel.open(docker, id, ROOT, HELPER) : undefined,
  });
}

const decodeId = (stdout: Uint8Array): string => new TextDecoder().decode(stdout).trim();

/** A running container. */
export class Container implements SandboxContainer {
  readonly #docker: Docker;
  /** The container id. */
  readonly id: string;
  /** How it was started. */
  readonly spec: ContainerSpec;
  readonly #transport: Transport;
  // A copy of the helper begun by `installHelper` and not yet used by `killAndArchive`.
  #freshHelper: Promise<boolean> | undefined;

  /**
   * Wraps a started container; use {@linkcode startContainer}. With `channels`, commands of its
   * user and copies out go through them while they work, and through `docker exec` and
   * `docker cp` otherwise; without, always through those.
   */
  constructor(docker: Docker, id: string, spec: ContainerSpec, channels?: ContainerChannels) {
    this.#docker = docker;
    this.id = id;
    this.spec = spec;
    const target = { docker, id, workdir: spec.workdir, helper: channels?.helper };
    const plain = new DockerExecTransport(target);
    this.#transport = channels ? new ChannelTransport(target, channels, plain) : plain;
  }

  /** See {@linkcode SandboxContainer.channelLost}. */
  get channelLost(): string | undefined {
    return this.#transport.lost;
  }

  /**
   * Runs a shell command (`sh -c`). At the deadline, or when the signal aborts, every process of
   * the command's session is killed, including ones it left in the background.
   * @throws {InfrastructureError} when the container is gone or the engine refuses the command.
   */
  async exec(script: string, options: ExecOptions): Promise<ExecResult> {
    return await this.#transport.exec(
      script,
      options,
      options.user ?? this.spec.user ?? AGENT_USER,
    );
  }

  /** See {@linkcode SandboxContainer.unpackAndExec}: one exec, no `docker cp` first. */
  async unpackAndExec(
    tar: Uint8Array | Promise<LaterInput>,
    command: string,
    options: UnpackExecOptions,
  ): Promise<UnpackedExecResult> {
    const { report, ...execOptions } = options;
    const then = report === undefined ? `exec ${command}` : thenReport(command, report);
    const { unpack, input } = unpackFrom(tar);
    const result = await this.exec(`${unpack}\n${then}`, { ...execOptions, ...input });
    if (!result.stdout.startsWith(`${UNPACKED_MARK}\n`)) return { ...result, unpacked: false };
    const stdout = result.stdout.slice(UNPACKED_MARK.length + 1);
    if (report === undefined) return { ...result, stdout, unpacked: true };
    const read = reportRead(stdout, report.maxBytes);
    return {
      ...result,
      stdout: "",
      unpacked: true,
      ...(read === undefined ? {} : { report: read }),
    };
  }

  /** See {@linkcode SandboxContainer.attach}: a `docker exec --interactive` of its own. */
  attach(argv: readonly string[]): AttachedProcess {
    const child = this.#docker.spawn([
      "exec",
      "--interactive",
      `--user=${this.spec.user ?? AGENT_USER}`,
      this.id,
      ...argv,
    ], { stdin: true });
    const ended = (async () => {
      const [said] = await Promise.all([new Response(child.stderr).text(), child.status]);
      return said.trim().split("\n").at(-1) ?? "";
    })();
    return {
      stdout: child.stdout,
      stdin: child.stdin,
      ended,
      kill: () => killQuietly(child),
    };
  }

  /**
   * Copies a tar stream into the container at `destination`. Files keep the numeric owners and
   * modes written in the tar, which Verdict always sets explicitly.
   */
  async copyIn(tar: Uint8Array, destination: string): Promise<void> {
    const result = await this.#docker.run(["cp", "-", `${this.id}:${destination}`], { stdin: tar });
    if (result.code !== 0) {
      throw new InfrastructureError(
        `could not copy files into the container: ${firstLine(result.stderr)}`,
      );
    }
  }

  /**
   * Copies a path out of the container (running, paused or stopped) as tar entries, parsed as the
   * stream arrives: `admit` sees each entry before its bytes are read, and what it throws stops
   * the copy and is thrown as is.
   * @throws {InfrastructureError} when the engine cannot copy the path, or takes longer than
   * `timeoutMs` (default two minutes).
   */
  copyOut(
    path: string,
    admit?: (entry: TarEntryHeader) => void,
    timeoutMs = 120_000,
  ): Promise<TarEntry[]> {
    return this.#transport.copyOut(path, admit, timeoutMs);
  }

  /**
   * Kills every process but the container's own idle one, then archives the paths, in one
   * `docker exec` as root run by the engine's static helper, copied in just before (over whatever
   * the agent left at its path; the copy `installHelper` began last, when no seal used it yet):
   * see {@linkcode SandboxContainer.killAndArchive}.
   */
  async killAndArchive(
    whole: readonly string[],
    alone: readonly string[],
    admit?: (entry: TarEntryHeader) => void,
    timeoutMs = 120_000,
  ): Promise<TarEntry[]> {
    const what = `${whole.length + alone.length} paths`;
    const fresh = this.#freshHelper ?? installHelper(this.#docker, this.id);
    this.#freshHelper = undefined;
    if (!await fresh) {
      throw new InfrastructureError(`could not copy ${what} out: the engine's helper is missing`);
    }
    // `./` first: a name cannot be read as an option.
    const named = (paths: readonly string[]) =>
      paths.map((path) => `./${path.replace(/^\/+/, "")}`);
    return await readDockerTar(
      this.#docker,
      [
        "exec",
        "--user=0:0",
        this.id,
        HELPER,
        "sh",
        "-c",
        KILL_OTHERS_AND_ARCHIVE,
        "verdict-archive",
        String(whole.length),
        ...named(whole),
        ...named(alone),
      ],
      what,
      admit,
      timeoutMs,
      true,
    );
  }

  /** See {@linkcode SandboxContainer.installHelper}: `docker cp`. */
  async installHelper(): Promise<string | undefined> {
    const copying = installHelper(this.#docker, this.id);
    this.#freshHelper = copying;
    return await copying ? HELPER : undefined;
  }

  /** See {@linkcode SandboxContainer.changes}: `docker diff`. */
  async changes(): Promise<FilesystemChange[]> {
    const result = await this.#docker.run(["diff", this.id]);
    if (result.code !== 0) {
      throw new InfrastructureError(
        `could not list the changes of container ${this.id.slice(0, 12)}: ${
          firstLine(result.stderr)
        }`,
      );
    }
    return parseDockerDiff(new TextDecoder().decode(result.stdout));
  }

  /**
   * Stops every process for good (files can still be copied out; already stopped is fine): from
   * inside by the free commands' channel's own `kill` (every process of the container's user, so
   * every one an agent can start, and the idle one, so init exits), else by `docker kill`. (Not
   * `docker pause`: a cgroup-v1 freezer that catches a `docker exec` half started wedges it.)
   */
  async stop(): Promise<void> {
    if (await this.#transport.stopProcesses(this.spec.user ?? AGENT_USER)) {
      await this.#transport.close();
      return;
    }
    const killed = await this.#docker.run(["kill", this.id]);
    await this.#transport.close();
    if (killed.code !== 0 && !/is not running/i.test(killed.stderr)) {
      throw new InfrastructureError(
        `could not stop container ${this.id.slice(0, 12)}: ${firstLine(killed.stderr)}`,
      );
    }
  }

  /** Removes it with all still running in it (gone is fine); removals at once share a `docker rm`. */
  async remove(): Promise<void> {
    const closing = this.#transport.close();
    const result = await removeBatched(this.#docker, this.id);
    await closing;
    if (result.code !== 0 && !/No such container/i.test(result.stderr)) {
      throw new InfrastructureError(
        `could not remove container ${this.id.slice(0, 12)}: ${firstLine(result.stderr)}`,
      );
    }
  }
}

/**
 * Removes containers by id, with whatever still runs in them, in one `docker rm`.
 *
 * @example
 * ```ts
 * import { Docker } from "./docker.ts";
 * import { removeContainers } from "./container.ts";
 * await removeContainers(new Docker({ PATH: "/usr/bin:/bin" }), []);
 * ```
 */
export async function removeContainers(docker: Docker, ids: readonly string[]): Promise<void> {
  if (ids.length > 0) await docker.run(["rm", "--force", "--volumes", ...ids]);
}

/**
 * Containers carrying every one of the `filters` labels, with their state and the values of the
 * labels named in `keys`: one `docker ps` for any number of containers.
 *
 * @example
 * ```ts
 * import { Docker } from "./docker.ts";
 * import { findLabelled } from "./container.ts";
 * const docker = new Docker({ PATH: "/usr/bin:/bin" });
 * console.log(await findLabelled(docker, ["verdict.run=abc"], ["verdict.session"]));
 * ```
 */
export async function findLabelled(
  docker: Docker,
  filters: readonly string[],
  keys: readonly string[] = [],
): Promise<LabelledContainer[]> {
  const text = await docker.text([
    "ps",
    "--all",
    ...filters.flatMap((label) => ["--filter", `label=${label}`]),
    "--format",
    ["{{.ID}}", "{{.State}}", ...keys.map((key) => `{{.Label ${JSON.stringify(key)}}}`)].join("\t"),
  ]);
  return text.split("\n").filter((line) => line !== "").map((line) => {
    const [id, state, ...values] = line.split("\t");
    return { id, state, labels: Object.fromEntries(keys.map((key, i) => [key, values[i] ?? ""])) };
  });
}

// `--mount` reads its value as CSV: each field is quoted, so a path may hold commas.
function mountOption(mount: BindMount): string {
  const field = (text: string) => `"${text.replaceAll('"', '""')}"`;
  return `--mount=${
    [
      "type=bind",
      field(`source=${mount.source}`),
      field(`target=${mount.target}`),
      ...(mount.readOnly ? ["readonly"] : []),
    ].join(",")
  }`;
}
