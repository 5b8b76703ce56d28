import assert from "node:assert/strict";
import { join } from "node:path";
import type { Results } from "../../../src/report/results.ts";
import { containersLabelled, requireDocker } from "../../_docker.ts";
import { runVerdict, scratchDir, verdictCommand } from "../../_verdict.ts";

/**
 * A unix-socket relay to the real engine: Verdict talks to the engine through it, and the test
 * "stops the engine" by closing the relay, which the docker CLI sees exactly as a dead daemon.
 */
function engineRelay(path: string, engine = "/var/run/docker.sock") {
  const listener = Deno.listen({ transport: "unix", path });
  const connections = new Set<Deno.Conn>();
  const serving = (async () => {
    for await (const client of listener) {
      connections.add(client);
      Deno.connect({ transport: "unix", path: engine }).then((upstream) => {
        connections.add(upstream);
        const close = () => {
          for (const conn of [client, upstream]) {
            try {
              conn.close();
            } catch { /* closed */ }
          }
        };
        // A client's half-close (the end of a `docker exec -i` stdin) is passed on as one, and the
        // connection ends when the engine's side does. (A stream's end would close the socket.)
        copy(client, upstream).then(() => upstream.closeWrite()).catch(close);
        copy(upstream, client).catch(() => {}).finally(close);
      }, () => client.close());
    }
  })().catch(() => {});
  return {
    async stop() {
      listener.close();
      for (const conn of connections) {
        try {
          conn.close();
        } catch { /* closed */ }
      }
      await serving;
    },
  };
}

async function copy(from: Deno.Conn, to: Deno.Conn): Promise<void> {
  const buffer = new Uint8Array(64 * 1024);
  for (;;) {
    const read = await from.read(buffer);
    if (read === null) return;
    for (let written = 0; written < read;) {
      written += await to.write(buffer.subarray(written, read));
    }
  }
}

Deno.test("an engine that stops mid-run: unfinished trials are infrastructure errors, finished ones kept, exit 3", async () => {
  const docker = await requireDocker();
  await using home = await scratchDir("engine");
  const socket = join(home.path, "docker.sock");
  const relay = engineRelay(socket);
  const child = verdictCommand(
    [
      "eval",
      "--agent",
      "oracle",
      "tests/fixtures/slow",
      "--repeat",
      "3",
      "--concurrency",
      "1",
      "--home",
      home.path,
    ],
    { env: { DOCKER_HOST: `unix://${socket}` } },
  ).spawn();
  const reader = child.stdout.getReader();
  const decoder = new TextDecoder();
  let output = "";
  while (!output.includes("[1/3]")) {
    const { value, done } = await reader.read();
    if (done) break;
    output += decoder.decode(value);
  }
  await relay.stop();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    output += decoder.decode(value);
  }
  const status = await child.status;
  const stderr = new TextDecoder().decode(
    (await new Response(child.stderr).arrayBuffer()) as ArrayBuffer,
  );
  assert.equal(status.code, 3, output + stderr);
  const run = /^run (\w+)/.exec(output)![1];
  const results = JSON.parse(
    await Deno.readTextFile(join(home.path, "runs", run, "results.json")),
  ) as Results;
  assert.deepEqual(results.trials.map((trial) => trial.bucket), [
    "pass",
    "infrastructure_error",
    "infrastructure_error",
  ]);
  assert.match(results.trials[1].reason, /no Docker engine answers: .*start one/);
  // Never blamed on the agent: whether the engine went away before the trial's container started
  // (no stop reason) or under an agent already at work in a container started ahead (`error`),
  // the trial is infrastructure's.
  assert.ok(
    [null, "error"].includes(results.trials[1].stop_reason),
    results.trials[1].stop_reason!,
  );
  // The relay is gone, but the engine itself is not: clean up what the dead connection left.
  for (const id of await containersLabelled(docker, `verdict.run=${run}`)) {
    await docker.run(["rm", "-f", id]);
  }
});

Deno.test("no engine at all, or a missing image, exits 3 with a message that says what to do", async () => {
  await requireDocker();
  await using home = await scratchDir("engine");
  const down = await runVerdict([
    "eval",
    "--agent",
    "oracle",
    "tests/fixtures/slow",
    "--home",
    home.path,
  ], {
    env: { DOCKER_HOST: `unix://${join(home.path, "nothing.sock")}` },
  });
  assert.equal(down.code, 3);
  assert.match(down.stderr, /no Docker engine answers: .*start one \(for example `sudo dockerd &`/);
  const missing = await runVerdict([
    "eval",
    "--agent",
    "oracle",
    "tests/fixtures/missing-image",
    "--home",
    home.path,
  ]);
  assert.equal(missing.code, 3);
  assert.match(
    missing.stderr,
    /image verdict\/not-built:1 is missing: build it with scripts\/build-images\.sh .*\(needed by needs-missing-image\)/,
  );
});
