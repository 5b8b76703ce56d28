/**
 * The gateway reached over a sidecar's exec streams, as on another host's engine: the sidecar
 * mounts nothing, an agent's container that shares its loopback gets answers from the gateway on
 * this machine, many connections at once, large bodies both ways, keep-alive, and a client that
 * closes its side first; a forwarder that cannot listen is an infrastructure error naming why.
 */
import assert from "node:assert/strict";
import { InfrastructureError } from "../../src/core/errors.ts";
import { DockerSandbox } from "../../src/engine/docker_sandbox.ts";
import { AGENT_USER, type SandboxContainer } from "../../src/engine/sandbox.ts";
import { relayOverExec } from "../../src/gateway/exec_relay.ts";
import { serveGateway } from "../../src/gateway/serve_gateway.ts";
import { GATEWAY_PORT, SIDECAR_IMAGE } from "../../src/gateway/sidecar.ts";
import { requireDocker } from "../_docker.ts";

const LABELS = { "verdict.test": "exec-relay" };

// Asks the gateway from the agent's side: 24 requests at once (each body 256 KiB, answered with
// its sha256 and a 512 KiB body), two on one kept-alive connection, and one whose client shuts
// its writing side before it reads.
const CLIENT = `import hashlib, http.client, socket, sys, threading
port = ${GATEWAY_PORT}
errors = []
def one(i):
    try:
        body = bytes([i % 256]) * (256 * 1024)
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        c.request("POST", "/v1/echo/%d" % i, body)
        r = c.getresponse()
        data = r.read()
        want = ("%s %d " % (hashlib.sha256(body).hexdigest(), i)).encode()
        if r.status != 200 or not data.startswith(want) or len(data) != len(want) + 512 * 1024:
            errors.append("request %d: %d %r" % (i, r.status, data[:80]))
    except Exception as e:
        errors.append("request %d: %r" % (i, e))
threads = [threading.Thread(target=one, args=(i,)) for i in range(24)]
[t.start() for t in threads]
[t.join() for t in threads]
c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
for i in (100, 101):
    c.request("POST", "/v1/echo/%d" % i, b"x")
    r = c.getresponse()
    if not r.read().startswith(hashlib.sha256(b"x").hexdigest().encode()):
        errors.append("keep-alive %d" % i)
s = socket.create_connection(("127.0.0.1", port))
s.sendall(b"POST /v1/echo/7 HTTP/1.1\\r\\nHost: g\\r\\nContent-Length: 1\\r\\nConnection: close\\r\\n\\r\\nx")
s.shutdown(socket.SHUT_WR)
got = b""
while True:
    part = s.recv(65536)
    if not part:
        break
    got += part
if b" 200 " not in got.split(b"\\r\\n")[0]:
    errors.append("half-closed: %r" % got[:80])
print("\\n".join(errors) or "ok")
`;

async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>);
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

async function withSidecar(
  work: (sidecar: SandboxContainer, sandbox: DockerSandbox) => Promise<void>,
) {
  const sandbox = new DockerSandbox(await requireDocker());
  const sidecar = await sandbox.start({
    image: SIDECAR_IMAGE,
    workdir: "/",
    network: "none",
    labels: LABELS,
    user: AGENT_USER,
  });
  try {
    await work(sidecar, sandbox);
  } finally {
    await sidecar.remove();
  }
}

Deno.test("an agent's container reaches the gateway over the sidecar's exec streams, with no mount: many connections, large bodies, keep-alive, half-close", async () => {
  const gateway = await serveGateway(async (request) => {
    const body = new Uint8Array(await request.arrayBuffer());
    const id = new URL(request.url).pathname.split("/").at(-1);
    return new Response(
      new Blob([`${await sha256Hex(body)} ${id} `, new Uint8Array(512 * 1024).fill(97)]),
    );
  });
  try {
    await withSidecar(async (sidecar, sandbox) => {
      const relay = await relayOverExec(sidecar, gateway.socketPath);
      const agent = await sandbox.start({
        image: SIDECAR_IMAGE,
        workdir: "/",
        network: `container:${sidecar.id}`,
        labels: LABELS,
        user: AGENT_USER,
      });
      try {
        const mounts = await new Deno.Command("docker", {
          args: ["inspect", "--format", "{{json .Mounts}}", sidecar.id, agent.id],
        }).output();
        assert.deepEqual(new TextDecoder().decode(mounts.stdout).trim().split("\n"), ["[]", "[]"]);
        const asked = await agent.exec(`python3 -c '${CLIENT.replaceAll("'", "'\\''")}'`, {
          timeoutMs: 120_000,
          maxOutputBytes: 64 * 1024,
        });
        assert.equal(asked.exitCode, 0, asked.stderr);
        assert.equal(asked.stdout.trim(), "ok");
        await relay.close();
        const after = await agent.exec(
          `python3 -c 'import socket; socket.create_connection(("127.0.0.1", ${GATEWAY_PORT}))'`,
          { timeoutMs: 30_000 },
        );
        assert.notEqual(after.exitCode, 0, "nothing listens once the relay is closed");
      } finally {
        await agent.remove();
      }
    });
  } finally {
    await gateway.close();
  }
});

Deno.test("a forwarder that cannot listen (its port taken) is an infrastructure error naming why", async () => {
  const gateway = await serveGateway(() => Promise.resolve(new Response("hi")));
  try {
    await withSidecar(async (sidecar) => {
      const first = await relayOverExec(sidecar, gateway.socketPath);
      try {
        await assert.rejects(
          relayOverExec(sidecar, gateway.socketPath),
          (error: Error) =>
            error instanceof InfrastructureError && /Address already in use/.test(error.message),
        );
      } finally {
        await first.close();
      }
    });
  } finally {
    await gateway.close();
  }
});
