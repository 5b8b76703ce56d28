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
// exec's session and output, and relays every connection in both directions in one thread (a
// selector, with a bounded buffer per direction), so that many connections at once cost no
// threads: the sidecar's pids limit (256) stopped a thread-per-direction relay at about 128. It
// raises its open-file limit to the hard one; out of descriptors, it stops accepting until a
// connection closes; a failed connect drops that connection only.
const FORWARDER = `import os, resource, selectors, socket, sys
port, path = int(sys.argv[1]), sys.argv[2]
_, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
server.bind(("127.0.0.1", port))
server.listen(1024)
if os.fork():
    print("listening", flush=True)
    os._exit(0)
os.setsid()
null = os.open(os.devnull, os.O_RDWR)
for fd in (0, 1, 2):
    os.dup2(null, fd)
server.setblocking(False)
events = selectors.DefaultSelector()
events.register(server, selectors.EVENT_READ)
LIMIT = 1 << 20
class End:
    def __init__(self, sock):
        self.sock, self.peer, self.out, self.read_done, self.write_done = sock, None, bytearray(), False, False
def watch(end):
    mask = 0
    if not end.read_done and len(end.peer.out) < LIMIT:
        mask |= selectors.EVENT_READ
    if end.out:
        mask |= selectors.EVENT_WRITE
    try:
        events.unregister(end.sock)
    except (KeyError, ValueError):
        pass
    if mask:
        events.register(end.sock, mask, end)
paused = [False]
def pause():
    if not paused[0]:
        paused[0] = True
        events.unregister(server)
def close(end):
    for side in (end, end.peer):
        try:
            events.unregister(side.sock)
        except (KeyError, ValueError):
            pass
        side.sock.close()
    if paused[0]:
        paused[0] = False
        events.register(server, selectors.EVENT_READ)
def finish_writes(end):
    if not end.out and end.peer.read_done and not end.write_done:
        end.write_done = True
        try:
            end.sock.shutdown(socket.SHUT_WR)
        except OSError:
            pass
def accept():
    while True:
        try:
            client, _ = server.accept()
        except BlockingIOError:
            return
        except OSError:
            return pause()
        try:
            upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        except OSError:
            client.close()
            return pause()
        try:
            upstream.connect(path)
        except OSError:
            client.close()
            upstream.close()
            continue
        client.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        a, b = End(client), End(upstream)
        a.peer, b.peer = b, a
        for end in (a, b):
            end.sock.setblocking(False)
            watch(end)
def step(end, mask):
    if mask & selectors.EVENT_READ:
        try:
            data = end.sock.recv(65536)
        except BlockingIOError:
            data = None
        except OSError:
            return close(end)
        if data == b"":
            end.read_done = True
            finish_writes(end.peer)
        elif data:
            end.peer.out += data
    if mask & selectors.EVENT_WRITE and end.out:
        try:
            sent = end.sock.send(end.out)
            del end.out[:sent]
        except BlockingIOError:
            pass
        except OSError:
            return close(end)
        finish_writes(end)
    if end.read_done and end.peer.read_done and not end.out and not end.peer.out:
        return close(end)
    watch(end)
    watch(end.peer)
while True:
    for key, mask in events.select():
        if key.fileobj is server:
            accept()
        elif key.data.sock.fileno() != -1:
            step(key.data, mask)
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
