/**
 * How an agent's container on another host reaches its trial's gateway (a run over several
 * engines, `--engine`): nothing of this machine is mounted there, so the sidecar's forwarder
 * carries every connection over the stdin and stdout of the `docker exec` that started it, and
 * this process relays each to the gateway's socket. The forwarder (Python's standard library, in
 * Verdict's python image) listens on `127.0.0.1:`{@linkcode GATEWAY_PORT} in the namespace the
 * agent's container shares, as the local forwarder does (`sidecar.ts`).
 *
 * The stream is a run of frames, each `KIND ID LENGTH PAYLOAD` (one byte, two big-endian 32-bit
 * numbers, LENGTH bytes): `R` the forwarder listens (once, ID 0), `O` a connection opened, `D`
 * bytes on it, `E` its sender will send no more (a half close), `C` it is gone. The forwarder
 * exits when its stdin ends.
 *
 * @module
 */
import { InfrastructureError } from "../core/errors.ts";
import type { AttachedProcess, SandboxContainer } from "../engine/sandbox.ts";
import { GATEWAY_PORT } from "./sidecar.ts";

const READY_TIMEOUT_MS = 30_000;
const HEADER = 9;

// Reads stdin and every connection with one selector; writes frames to stdout as they come
// (blocking), and each connection's bytes as it can take them.
const STREAM_FORWARDER = `import os, selectors, socket, struct, sys
out = sys.stdout.buffer
def send(kind, cid, data=b""):
    out.write(struct.pack(">cII", kind, cid, len(data)) + data)
    out.flush()
server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
server.bind(("127.0.0.1", int(sys.argv[1])))
server.listen(1024)
server.setblocking(False)
os.set_blocking(0, False)
events = selectors.DefaultSelector()
events.register(server, selectors.EVENT_READ)
events.register(0, selectors.EVENT_READ)
conns, pending, ids = {}, bytearray(), [0]
class Conn:
    def __init__(self, cid, sock):
        self.cid, self.sock, self.out, self.eof, self.read_done = cid, sock, bytearray(), False, False
def watch(c):
    mask = (0 if c.read_done else selectors.EVENT_READ) | (selectors.EVENT_WRITE if c.out else 0)
    try:
        events.unregister(c.sock)
    except (KeyError, ValueError):
        pass
    if mask:
        events.register(c.sock, mask, c)
def drop(c, tell):
    if conns.pop(c.cid, None) is None:
        return
    try:
        events.unregister(c.sock)
    except (KeyError, ValueError):
        pass
    c.sock.close()
    if tell:
        send(b"C", c.cid)
def flush(c):
    if c.out:
        try:
            del c.out[:c.sock.send(c.out)]
        except BlockingIOError:
            pass
        except OSError:
            return drop(c, True)
    if not c.out and c.eof:
        try:
            c.sock.shutdown(socket.SHUT_WR)
        except OSError:
            pass
        if c.read_done:
            return drop(c, True)
    watch(c)
def frame(kind, cid, data):
    c = conns.get(cid)
    if c is None:
        return
    if kind == b"D":
        c.out += data
        flush(c)
    elif kind == b"E":
        c.eof = True
        flush(c)
    elif kind == b"C":
        drop(c, False)
def from_host():
    data = os.read(0, 65536)
    if not data:
        sys.exit(0)
    pending.extend(data)
    while len(pending) >= ${HEADER}:
        kind, cid, size = struct.unpack(">cII", pending[:${HEADER}])
        if len(pending) < ${HEADER} + size:
            return
        body = bytes(pending[${HEADER}:${HEADER} + size])
        del pending[:${HEADER} + size]
        frame(kind, cid, body)
def accept():
    while True:
        try:
            sock, _ = server.accept()
        except OSError:
            return
        sock.setblocking(False)
        ids[0] += 1
        c = conns[ids[0]] = Conn(ids[0], sock)
        send(b"O", c.cid)
        watch(c)
def step(c, mask):
    if mask & selectors.EVENT_READ:
        try:
            data = c.sock.recv(65536)
        except BlockingIOError:
            data = None
        except OSError:
            return drop(c, True)
        if data == b"":
            c.read_done = True
            send(b"E", c.cid)
            if c.eof and not c.out:
                return drop(c, True)
        elif data:
            send(b"D", c.cid, data)
    if mask & selectors.EVENT_WRITE:
        return flush(c)
    watch(c)
send(b"R", 0)
while True:
    for key, mask in events.select():
        if key.fileobj is server:
            accept()
        elif key.fileobj == 0:
            from_host()
        elif key.data.cid in conns:
            step(key.data, mask)
`;

/** A relay at work: stop it with the trial. */
export interface StreamRelay {
  /** Ends the forwarder and every connection it carries. */
  close(): Promise<void>;
}

/**
 * Starts the forwarder in a started sidecar and relays its connections to the gateway's socket
 * `socketPath`; returns once the forwarder listens.
 *
 * @example
 * ```ts ignore
 * // Needs a real engine (the memory double runs no programs): tests/gateway/exec_relay_test.ts.
 * import { relayOverExec } from "./exec_relay.ts";
 * declare const sidecar: import("../engine/sandbox.ts").SandboxContainer;
 * const relay = await relayOverExec(sidecar, "/tmp/verdict-gateway/g1/gateway.sock");
 * await relay.close();
 * ```
 * @throws {InfrastructureError} when the forwarder does not start within 30 s.
 */
export async function relayOverExec(
  sidecar: SandboxContainer,
  socketPath: string,
  signal?: AbortSignal,
): Promise<StreamRelay> {
  const process = sidecar.attach(["python3", "-c", STREAM_FORWARDER, String(GATEWAY_PORT)]);
  const relay = new Relay(process, socketPath);
  const ready = relay.run();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new InfrastructureError("the forwarder did not start within 30 s")),
      READY_TIMEOUT_MS,
    );
  });
  const aborted = new Promise<never>((_, reject) => {
    signal?.addEventListener("abort", () => reject(signal.reason), { once: true });
  });
  try {
    await Promise.race([ready, late, aborted]);
  } catch (error) {
    await relay.close();
    throw error instanceof InfrastructureError || signal?.aborted ? error : new InfrastructureError(
      `could not start the model gateway's forwarder in its sidecar: ${String(error)}`,
    );
  } finally {
    clearTimeout(timer);
  }
  return relay;
}

/** The host's end: frames in, connections to the socket out. */
class Relay implements StreamRelay {
  readonly #process: AttachedProcess;
  readonly #socketPath: string;
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #upstreams = new Map<number, Promise<Deno.UnixConn | undefined>>();
  #closed = false;

  constructor(process: AttachedProcess, socketPath: string) {
    this.#process = process;
    this.#socketPath = socketPath;
    this.#writer = process.stdin.getWriter();
  }

  /** Reads frames until the stream ends; resolves once the forwarder says it listens. */
  run(): Promise<void> {
    return new Promise((ready, failed) => {
      // Its stream ends with it: why is the last line it wrote on stderr.
      const ended = async () => {
        const said = await this.#process.ended;
        failed(new Error(said || "the forwarder ended"));
      };
      this.#read(ready).then(ended, ended);
    });
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#process.kill();
    for (const upstream of this.#upstreams.values()) (await upstream)?.close();
    this.#upstreams.clear();
    await this.#process.ended;
  }

  async #read(ready: () => void): Promise<void> {
    let pending: Uint8Array = new Uint8Array(0);
    for await (const chunk of this.#process.stdout) {
      pending = concat(pending, chunk);
      while (pending.length >= HEADER) {
        const view = new DataView(pending.buffer, pending.byteOffset, pending.length);
        const size = view.getUint32(5);
        if (pending.length < HEADER + size) break;
        const kind = String.fromCharCode(pending[0]);
        const id = view.getUint32(1);
        const body = pending.slice(HEADER, HEADER + size);
        pending = pending.slice(HEADER + size);
        if (kind === "R") ready();
        else await this.#frame(kind, id, body);
      }
    }
  }

  async #frame(kind: string, id: number, body: Uint8Array): Promise<void> {
    if (kind === "O") {
      const opening = Deno.connect({ transport: "unix", path: this.#socketPath }).then(
        (conn) => {
          this.#pump(id, conn);
          return conn;
        },
        () => {
          this.#send("C", id);
          return undefined;
        },
      );
      this.#upstreams.set(id, opening);
      return;
    }
    const conn = await this.#upstreams.get(id);
    if (conn === undefined) return;
    if (kind === "D") await writeAll(conn, body).catch(() => this.#drop(id, true));
    // A client's half close is not passed on: the gateway's HTTP server drops a request whose
    // client closed its side before the answer.
    else if (kind === "C") this.#drop(id, false);
  }

  // The gateway's answer, back to the forwarder, until the gateway ends its side.
  #pump(id: number, conn: Deno.UnixConn): void {
    (async () => {
      for await (const chunk of conn.readable) this.#send("D", id, chunk);
      this.#send("E", id);
    })().catch(() => this.#drop(id, true));
  }

  #drop(id: number, tell: boolean): void {
    const upstream = this.#upstreams.get(id);
    this.#upstreams.delete(id);
    upstream?.then((conn) => {
      try {
        conn?.close();
      } catch {
        // Closed already.
      }
    });
    if (tell) this.#send("C", id);
  }

  #send(kind: string, id: number, body: Uint8Array = new Uint8Array(0)): void {
    if (this.#closed) return;
    const frame = new Uint8Array(HEADER + body.length);
    const view = new DataView(frame.buffer);
    frame[0] = kind.charCodeAt(0);
    view.setUint32(1, id);
    view.setUint32(5, body.length);
    frame.set(body, HEADER);
    this.#writer.write(frame).catch(() => undefined);
  }
}

async function writeAll(conn: Deno.Conn, bytes: Uint8Array): Promise<void> {
  for (let at = 0; at < bytes.length;) at += await conn.write(bytes.subarray(at));
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (a.length === 0) return b;
  const joined = new Uint8Array(a.length + b.length);
  joined.set(a);
  joined.set(b, a.length);
  return joined;
}
