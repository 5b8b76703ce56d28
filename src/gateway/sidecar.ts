/**
 * How an agent's container, which has no network but loopback, reaches its trial's gateway: a
 * sidecar container owns the network namespace (`--network none`, so only `lo`) and has the
 * gateway's socket folder bind-mounted read-only; a forwarder in it (Python's standard library, as
 * Verdict's own python image has it) listens on `127.0.0.1:`{@linkcode GATEWAY_PORT} and relays
 * each connection to the socket. The agent's container joins that namespace
 * (`--network container:<sidecar>`), so the task's image needs nothing.
 *
 * @module
 */
import { InfrastructureError } from "../core/errors.ts";
import { shellQuote } from "../core/shell_quote.ts";
import type { BindMount, SandboxContainer } from "../engine/sandbox.ts";
import { GATEWAY_SOCKET_NAME } from "./serve_gateway.ts";

/** The loopback port the forwarder listens on, in the namespace the agent's container shares. */
export const GATEWAY_PORT = 8790;

/** The image the sidecar runs: Verdict's own, which has `python3`. */
export const SIDECAR_IMAGE = "verdict/python:3.11";

/** Where the sidecar sees the gateway's socket folder. */
export const SOCKET_MOUNT_POINT = "/verdict/gateway";

/** The role label of a trial's sidecar container. */
export const SIDECAR_ROLE = "gateway";

// Binds first, then forks: the parent's exit 0 means the port listens. The child leaves the
// exec's session and output, and relays each connection in both directions until each side ends.
const FORWARDER = `import os, socket, sys, threading
port, path = int(sys.argv[1]), sys.argv[2]
server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
server.bind(("127.0.0.1", port))
server.listen(128)
if os.fork():
    print("listening", flush=True)
    os._exit(0)
os.setsid()
null = os.open(os.devnull, os.O_RDWR)
for fd in (0, 1, 2):
    os.dup2(null, fd)
def pump(source, sink):
    try:
        while True:
            data = source.recv(65536)
            if not data:
                break
            sink.sendall(data)
    except OSError:
        pass
    try:
        sink.shutdown(socket.SHUT_WR)
    except OSError:
        pass
def relay(client):
    upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        upstream.connect(path)
    except OSError:
        client.close()
        return
    back = threading.Thread(target=pump, args=(upstream, client), daemon=True)
    back.start()
    pump(client, upstream)
    back.join()
    client.close()
    upstream.close()
while True:
    client, _ = server.accept()
    client.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    threading.Thread(target=relay, args=(client,), daemon=True).start()
`;

/**
 * The bind mount that gives a sidecar the gateway's socket folder, read-only (connecting to a
 * socket is allowed on a read-only mount; making files there is not).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { socketMount } from "./sidecar.ts";
 * assert.deepEqual(socketMount("/tmp/verdict-gateway/g1"), {
 *   source: "/tmp/verdict-gateway/g1", target: "/verdict/gateway", readOnly: true,
 * });
 * ```
 */
export function socketMount(folder: string): BindMount {
  return { source: folder, target: SOCKET_MOUNT_POINT, readOnly: true };
}

/**
 * Starts the forwarder in a started sidecar (as its unprivileged user); returns once it listens.
 *
 * @example
 * ```ts
 * import { MemorySandbox } from "../engine/memory_sandbox.ts";
 * import { AGENT_USER } from "../engine/sandbox.ts";
 * import { socketMount, startForwarder } from "./sidecar.ts";
 * const sandbox = new MemorySandbox();
 * const sidecar = await sandbox.start({
 *   image: "verdict/python:3.11", workdir: "/", network: "none", labels: {}, user: AGENT_USER,
 *   mounts: [socketMount("/tmp/verdict-gateway/g1")],
 * });
 * await startForwarder(sidecar);
 * ```
 * @throws {InfrastructureError} when it cannot listen.
 */
export async function startForwarder(
  sidecar: SandboxContainer,
  signal?: AbortSignal,
): Promise<void> {
  const socket = `${SOCKET_MOUNT_POINT}/${GATEWAY_SOCKET_NAME}`;
  const result = await sidecar.exec(
    `exec python3 -c ${shellQuote(FORWARDER)} ${GATEWAY_PORT} ${shellQuote(socket)}`,
    { timeoutMs: 30_000, workdir: "/", signal, maxOutputBytes: 64 * 1024 },
  );
  if (result.aborted) throw signal?.reason;
  if (result.exitCode !== 0) {
    throw new InfrastructureError(
      `could not start the model gateway's forwarder in its sidecar (exit ${result.exitCode}` +
        `${result.timedOut ? ", timed out" : ""}): ${result.stderr.trim().split("\n").at(-1)}`,
    );
  }
}
