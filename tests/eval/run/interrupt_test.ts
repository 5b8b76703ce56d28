import assert from "node:assert/strict";
import { join } from "node:path";
import type { Results } from "../../../src/report/results.ts";
import { containersLabelled, requireDocker } from "../../_docker.ts";
import { scratchDir, verdictCommand } from "../../_verdict.ts";

/** Reads a child's stdout line by line until `until` returns true for a line; returns the lines. */
async function readUntil(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  until: (line: string) => boolean,
): Promise<string[]> {
  const decoder = new TextDecoder();
  const lines: string[] = [];
  let buffered = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return lines;
    buffered += decoder.decode(value, { stream: true });
    const parts = buffered.split("\n");
    buffered = parts.pop()!;
    lines.push(...parts);
    if (parts.some(until)) return lines;
  }
}

Deno.test("Ctrl-C stops the run, removes its containers, keeps finished trials and exits 130", async () => {
  const docker = await requireDocker();
  await using home = await scratchDir("interrupt");
  const child = verdictCommand([
    "eval",
    "--agent",
    "oracle",
    "tests/fixtures/slow",
    "--repeat",
    "3",
    "--concurrency",
    "2",
    "--home",
    home.path,
  ]).spawn();
  const reader = child.stdout.getReader();
  const lines = await readUntil(reader, (line) => line.startsWith("[1/3]"));
  const run = /^run (\w+)/.exec(lines[0])![1];
  assert.ok(
    (await containersLabelled(docker, `verdict.run=${run}`)).length > 0,
    "trials are running",
  );
  child.kill("SIGINT");
  await readUntil(reader, () => false);
  const status = await child.status;
  await child.stderr.cancel();
  assert.equal(status.code, 130);
  assert.deepEqual(await containersLabelled(docker, `verdict.run=${run}`), []);
  const results = JSON.parse(
    await Deno.readTextFile(join(home.path, "runs", run, "results.json")),
  ) as Results;
  assert.equal(results.run.status, "interrupted");
  assert.ok(
    results.summary.finished >= 1 && results.summary.finished < 3,
    `${results.summary.finished} finished`,
  );
  assert.equal(results.trials.length, results.summary.finished, "every finished trial is listed");
  assert.ok(
    results.trials.every((trial) => trial.verdict === "pass"),
    "finished trials keep their verdicts",
  );
});

Deno.test("containers left by a killed run are found by label and removed by the next run", async () => {
  const docker = await requireDocker();
  await using home = await scratchDir("leftovers");
  const child = verdictCommand([
    "eval",
    "--agent",
    "oracle",
    "tests/fixtures/slow",
    "--repeat",
    "2",
    "--concurrency",
    "2",
    "--home",
    home.path,
  ]).spawn();
  const reader = child.stdout.getReader();
  const lines = await readUntil(reader, (line) => line.startsWith("run "));
  const killed = /^run (\w+)/.exec(lines[0])![1];
  for (
    let tries = 0;
    (await containersLabelled(docker, `verdict.run=${killed}`)).length < 2;
    tries++
  ) {
    assert.ok(tries < 100, "the killed run never started its containers");
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  child.kill("SIGKILL");
  await child.status;
  await reader.cancel();
  await child.stderr.cancel();
  assert.ok((await containersLabelled(docker, `verdict.run=${killed}`)).length > 0, "left behind");

  const next = await verdictCommand([
    "eval",
    "--agent",
    "nop",
    "tests/fixtures/slow",
    "--home",
    home.path,
  ]).output();
  const output = new TextDecoder().decode(next.stdout);
  assert.equal(next.code, 0, new TextDecoder().decode(next.stderr));
  assert.match(output, new RegExp(`removed containers left by killed runs: ${killed}`));
  assert.deepEqual(await containersLabelled(docker, `verdict.run=${killed}`), []);
});
