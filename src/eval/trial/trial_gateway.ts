/**
 * A trial's model gateway, for an installed agent: served on a Unix socket
 * (`gateway/serve_gateway.ts`), reached from a sidecar that owns the agent's network namespace
 * (`gateway/sidecar.ts`). All of it is set up before the agent's container starts, since a
 * container's network namespace is fixed when it is made; the agent's container then joins the
 * sidecar's loopback, with the gateway's base URLs and the trial's dummy key in its environment.
 *
 * @module
 */
import { type InstalledAgent, mountsAsCopies } from "../../agent/cmd_agent.ts";
import { InfrastructureError } from "../../core/errors.ts";
import type { Rng } from "../../core/rng.ts";
import { reserveGatewayFolder, serveGateway } from "../../gateway/serve_gateway.ts";
import {
  GATEWAY_PORT,
  SIDECAR_IMAGE,
  SIDECAR_ROLE,
  SOCKET_MOUNT_POINT,
  socketMount,
  startForwarder,
} from "../../gateway/sidecar.ts";
import type { GatewayLedger } from "../../gateway/ledger.ts";
import type { ContainerSpec, SandboxContainer } from "../../engine/sandbox.ts";
import { relayOverExec } from "../../gateway/exec_relay.ts";
import { chargeRecorded } from "../../gateway/recording.ts";
import type { TrialContainerStart, TrialScope } from "./trial_scope.ts";

/** The part of the agent's container spec that an installed agent's surroundings decide. */
export type AgentContainerSetup = Partial<Pick<ContainerSpec, "network" | "env" | "mounts">>;

/** An opened gateway: how the agent's container is started, and the gateway's ledger. */
export interface OpenedGateway {
  /** The container setup. */
  setup: AgentContainerSetup;
  /** The ledger. */
  ledger: GatewayLedger;
  /**
   * What to do to the agent's container once started, before the agent runs: on a run's
   * engines, copy in what a local one mounts (the agent's kit).
   */
  fill?: (container: SandboxContainer) => Promise<void>;
}

/**
 * The trial's dummy key: what the agent's container holds instead of a provider's key, drawn from
 * the trial's seeded stream (a stream of its own, so the rest of the trial draws as it would).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { SplitMix64 } from "../../core/rng.ts";
 * import { trialDummyKey } from "./trial_gateway.ts";
 * assert.equal(trialDummyKey(new SplitMix64(1)), trialDummyKey(new SplitMix64(1)));
 * assert.match(trialDummyKey(new SplitMix64(1)), /^verdict-dummy-[0-9a-f]{32}$/);
 * ```
 */
export function trialDummyKey(rng: Rng): string {
  const stream = rng.stream("gateway/dummy-key");
  const hex = () => stream.nextUint64().toString(16).padStart(16, "0");
  return `verdict-dummy-${hex()}${hex()}`;
}

/**
 * The environment an installed agent's container gets: the gateway's base URLs on loopback and
 * the dummy key under both providers' names.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { gatewayEnvironment } from "./trial_gateway.ts";
 * assert.equal(gatewayEnvironment("k").OPENAI_BASE_URL, "http://127.0.0.1:8790/v1");
 * ```
 */
export function gatewayEnvironment(key: string): Record<string, string> {
  const base = `http://127.0.0.1:${GATEWAY_PORT}`;
  return {
    OPENAI_BASE_URL: `${base}/v1`,
    ANTHROPIC_BASE_URL: base,
    OPENAI_API_KEY: key,
    ANTHROPIC_API_KEY: key,
  };
}

/**
 * Opens the trial's gateway for an installed agent: serves it, starts the sidecar and its
 * forwarder (or takes `ahead`, a sidecar started before the trial with its forwarder listening,
 * see {@linkcode sidecarAhead}, and serves in the folder it mounts), and returns how the agent's
 * container is to be started. On one of a run's engines (`--engine`), the sidecar mounts nothing:
 * its forwarder's connections come over its exec's streams (`gateway/exec_relay.ts`), and the
 * agent's kit is copied in rather than mounted. The gateway is closed, and its socket removed,
 * with the trial's containers.
 *
 * @throws {InfrastructureError} when the eval supplied no gateway, or the socket, the sidecar or
 * the forwarder cannot be made.
 */
export async function openTrialGateway(
  scope: TrialScope,
  agent: InstalledAgent,
  ahead?: Promise<SandboxContainer>,
): Promise<OpenedGateway> {
  const { plan, deps } = scope;
  if (deps.gateway === undefined) {
    throw new InfrastructureError(
      `the agent ${agent.name} reaches a model through the gateway, but this run has none`,
    );
  }
  const key = trialDummyKey(deps.rng);
  const { handler, ledger } = await deps.gateway({
    plan,
    key,
    record: scope.record,
    storeBlob: (text) => deps.store.blobs.putText(text),
    signal: deps.signal,
    rng: deps.rng,
  });
  // An agent that starts over (after an interruption, or its engine's loss) pays for its calls.
  chargeRecorded(ledger, deps.store.events.read(plan.session));
  if (ahead !== undefined) {
    const sidecar = await ahead;
    const served = await serveGateway(handler, { folder: socketFolder(sidecar) });
    scope.onRemove(() => served.close());
    return { setup: agentSetup(sidecar, key, agent), ledger };
  }
  const served = await serveGateway(handler);
  scope.onRemove(() => served.close());
  // On a run's engines, any of which may be another host's: nothing of this machine is mounted.
  const remote = deps.engine !== undefined;
  const sidecar = await scope.start(
    SIDECAR_ROLE,
    SIDECAR_IMAGE,
    sidecarSpec(remote, served.folder),
  );
  if (remote) {
    const relay = await relayOverExec(sidecar, served.socketPath, deps.signal);
    scope.onRemove(() => relay.close());
  } else await startForwarder(sidecar, deps.signal);
  const fill = remote
    ? async (container: SandboxContainer) => {
      for (const tar of await mountsAsCopies(agent)) await container.copyIn(tar, "/");
    }
    : undefined;
  return {
    setup: agentSetup(sidecar, key, agent, remote),
    ledger,
    ...(fill === undefined ? {} : { fill }),
  };
}

/** An installed agent's sidecar and agent container, started before its trial. */
export interface GatewayAhead {
  /** The sidecar: its forwarder listens, its gateway's socket folder is mounted and empty. */
  sidecar: Promise<SandboxContainer>;
  /** The agent's container, in the sidecar's network namespace. */
  agent: Promise<SandboxContainer>;
}

/**
 * Starts a trial's sidecar and agent container ahead of it on the run's one local engine, as
 * {@linkcode openTrialGateway} would at its start: a reserved socket folder mounted in the
 * sidecar, its forwarder started, the agent's container in its network with the trial's dummy key
 * (drawn from `rng`, the trial's own stream) and the kit mounted. The gateway is served in that
 * folder when the trial opens it (and removed with it); one never served is the caller's to
 * remove ({@linkcode socketFolder} names it).
 *
 * @example
 * ```ts ignore
 * const ahead = sidecarAhead(start, agent, rng, agentImage);
 * ```
 */
export function sidecarAhead(
  start: TrialContainerStart,
  agent: InstalledAgent,
  rng: Rng,
  agentImage: Promise<string>,
  signal?: AbortSignal,
): GatewayAhead {
  const sidecar = reserveGatewayFolder().then(async (folder) => {
    const started = await start(SIDECAR_ROLE, SIDECAR_IMAGE, sidecarSpec(false, folder));
    await startForwarder(started, signal);
    return started;
  });
  const key = trialDummyKey(rng);
  const container = Promise.all([sidecar, agentImage]).then(([side, image]) =>
    start("agent", image, agentSetup(side, key, agent))
  );
  return { sidecar, agent: container };
}

/** The folder a sidecar started by this module mounts its gateway's socket from. */
export function socketFolder(sidecar: SandboxContainer): string {
  const mount = sidecar.spec.mounts?.find((each) => each.target === SOCKET_MOUNT_POINT);
  if (mount === undefined) {
    throw new InfrastructureError(`the sidecar ${sidecar.id.slice(0, 12)} mounts no socket folder`);
  }
  return mount.source;
}

function sidecarSpec(remote: boolean, folder: string): Partial<ContainerSpec> {
  return { workdir: "/", network: "none", mounts: remote ? [] : [socketMount(folder)] };
}

function agentSetup(
  sidecar: SandboxContainer,
  key: string,
  agent: InstalledAgent,
  remote = false,
): AgentContainerSetup {
  return {
    network: `container:${sidecar.id}`,
    env: gatewayEnvironment(key),
    mounts: remote ? [] : [...agent.mounts],
  };
}
