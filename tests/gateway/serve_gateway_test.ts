import assert from "node:assert/strict";
import { join } from "node:path";
import { InfrastructureError } from "../../src/core/errors.ts";
import {
  GATEWAY_SOCKET_NAME,
  GATEWAY_SOCKET_ROOT,
  reserveGatewayFolder,
  serveGateway,
} from "../../src/gateway/serve_gateway.ts";

async function ask(socketPath: string, path: string): Promise<string> {
  const client = Deno.createHttpClient({ proxy: { transport: "unix", path: socketPath } });
  try {
    const answer = await fetch(`http://gateway${path}`, { client, method: "POST", body: "hi" });
    return await answer.text();
  } finally {
    client.close();
  }
}

Deno.test("the gateway is served on a short socket open to every user, and gone once closed", async () => {
  const gateway = await serveGateway(async (request) =>
    new Response(`${new URL(request.url).pathname} ${await request.text()}`)
  );
  try {
    assert.equal(gateway.socketPath, join(gateway.folder, GATEWAY_SOCKET_NAME));
    assert(gateway.folder.startsWith(`${GATEWAY_SOCKET_ROOT}/`));
    // sun_path holds 108 bytes, the terminating NUL included.
    assert(new TextEncoder().encode(gateway.socketPath).length < 108);
    assert.equal(Deno.statSync(gateway.socketPath).mode! & 0o777, 0o666);
    assert.equal(Deno.statSync(gateway.folder).mode! & 0o777, 0o755);
    assert.equal(await ask(gateway.socketPath, "/v1/responses"), "/v1/responses hi");
  } finally {
    await gateway.close();
  }
  assert.throws(() => Deno.statSync(gateway.folder), Deno.errors.NotFound);
  await gateway.close(); // closing twice is fine
});

Deno.test("a folder reserved ahead (a sidecar mounts it before its trial) is served in, and removed with the gateway", async () => {
  const folder = await reserveGatewayFolder();
  assert.equal(Deno.statSync(folder).mode! & 0o777, 0o755);
  const gateway = await serveGateway(() => Promise.resolve(new Response("ahead")), { folder });
  try {
    assert.equal(gateway.socketPath, join(folder, GATEWAY_SOCKET_NAME));
    assert.equal(await ask(gateway.socketPath, "/v1/messages"), "ahead");
  } finally {
    await gateway.close();
  }
  assert.throws(() => Deno.statSync(folder), Deno.errors.NotFound);
});

Deno.test("two gateways get two sockets", async () => {
  const handler = () => Promise.resolve(new Response("a"));
  const first = await serveGateway(handler);
  const second = await serveGateway(handler);
  try {
    assert.notEqual(first.socketPath, second.socketPath);
  } finally {
    await Promise.all([first.close(), second.close()]);
  }
});

Deno.test("a socket folder that cannot be made is an infrastructure error naming it", async () => {
  const file = await Deno.makeTempFile({ dir: "/tmp" });
  try {
    await assert.rejects(
      serveGateway(() => Promise.resolve(new Response("")), { root: join(file, "under") }),
      (error) =>
        error instanceof InfrastructureError && error.message.includes("model gateway's socket") &&
        error.message.includes(file),
    );
  } finally {
    await Deno.remove(file);
  }
});

Deno.test("a client that drips a body and hangs up, or is cut by the gateway closing, costs one line each, not a stack trace", async () => {
  const lines: string[] = [];
  const gateway = await serveGateway(
    async (request) => new Response(await request.text()),
    { report: (line) => lines.push(line) },
  );
  const drip = async () => {
    const connection = await Deno.connect({ transport: "unix", path: gateway.socketPath });
    await connection.write(
      new TextEncoder().encode(
        'POST /v1/chat/completions HTTP/1.1\r\nhost: g\r\ncontent-length: 1000\r\n\r\n{"model":',
      ),
    );
    return connection;
  };
  const hangsUp = await drip();
  await new Promise((resolve) => setTimeout(resolve, 100));
  hangsUp.close();
  const cut = await drip();
  await new Promise((resolve) => setTimeout(resolve, 100));
  await gateway.close();
  cut.close();
  assert.equal(lines.length, 2, lines.join("\n"));
  for (const line of lines) {
    assert.match(
      line,
      /^the model gateway dropped a request: its connection closed before the request was whole/,
    );
    assert.doesNotMatch(line, /\n| {4}at /);
  }
});

Deno.test("a failure of the gateway's own is a 500 and its stack, not a dropped client's line", async () => {
  const lines: string[] = [];
  const gateway = await serveGateway(
    () => Promise.reject(new TypeError("a bug in recording")),
    { report: (line) => lines.push(line) },
  );
  try {
    const client = Deno.createHttpClient({
      proxy: { transport: "unix", path: gateway.socketPath },
    });
    const answer = await fetch("http://gateway/v1/messages", {
      client,
      method: "POST",
      body: "{}",
    });
    await answer.body?.cancel();
    client.close();
    assert.equal(answer.status, 500);
  } finally {
    await gateway.close();
  }
  assert.equal(lines.length, 1);
  assert.match(
    lines[0],
    /^the model gateway failed on a request: TypeError: a bug in recording\n {4}at /,
  );
});
