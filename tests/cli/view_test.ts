import assert from "node:assert/strict";
import { join } from "node:path";
import { writeRun } from "../_synthetic_runs.ts";
import { scratchDir, verdictCommand } from "../_verdict.ts";
import { runVerdictInProcess } from "./_in_process.ts";

async function digest(path: string): Promise<string> {
  const bytes = await crypto.subtle.digest("SHA-256", await Deno.readFile(path));
  return Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, "0")).join("");
}

// The installed command's permission set, as a user runs it: the printed address works, Ctrl-C
// ends it with 0, and the state database is byte for byte what it was.
Deno.test("verdict view prints an address with its token, serves it, writes nothing, and stops on Ctrl-C with exit 0", async () => {
  await using dir = await scratchDir("view-cli");
  const home = dir.path;
  await writeRun(home, "r1", [["t", 0, "pass"]]);
  const before = await digest(join(home, "verdict.db"));
  const child = verdictCommand(["view", "r1", "--home", home]).spawn();
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let printed = "";
  while (!printed.includes("\n")) {
    const { value, done } = await lines.read();
    if (done) break;
    printed += value;
  }
  const url = printed.match(/open (http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]{43})#\/run\/r1\n/)?.[1];
  assert.ok(url, printed);
  const traded = await fetch(url, { redirect: "manual" });
  assert.equal(traded.status, 303);
  const cookie = traded.headers.get("set-cookie")!.split(";")[0];
  const runs = await fetch(new URL("/api/runs", url), { headers: { cookie } });
  assert.deepEqual((await runs.json()).map((run: { id: string }) => run.id), ["r1"]);
  child.kill("SIGINT");
  const [status] = await Promise.all([child.status, lines.cancel(), child.stderr.cancel()]);
  assert.equal(status.code, 0);
  assert.equal(await digest(join(home, "verdict.db")), before, "the database is unchanged");
});

Deno.test("verdict view refuses what it cannot do with exit 2: a port in use, a bundle path that is a file, an unknown run", async () => {
  await using dir = await scratchDir("view-cli-bad");
  const home = dir.path;
  await writeRun(home, "r1", [["t", 0, "pass"]]);
  const taken = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  try {
    const busy = await runVerdictInProcess([
      "view",
      "--port",
      String(taken.addr.port),
      "--home",
      home,
    ]);
    assert.equal(busy.code, 2);
    assert.match(busy.stderr, new RegExp(`--port ${taken.addr.port} is in use on 127\\.0\\.0\\.1`));
  } finally {
    taken.close();
  }
  const file = join(dir.path, "a-file");
  await Deno.writeTextFile(file, "x");
  const bundle = await runVerdictInProcess(["view", "--bundle", file, "--home", home]);
  assert.equal(bundle.code, 2);
  assert.match(bundle.stderr, /--bundle/);
  const unknown = await runVerdictInProcess([
    "view",
    "nope",
    "--bundle",
    join(dir.path, "b"),
    "--home",
    home,
  ]);
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /no run 'nope'/);
  const port = await runVerdictInProcess(["view", "--port", "70000", "--home", home]);
  assert.deepEqual([port.code, port.stderr.includes("--port 70000 is not a port")], [2, true]);

  const latest = await runVerdictInProcess([
    "view",
    "--bundle",
    join(dir.path, "b"),
    "--home",
    home,
  ]);
  assert.equal(latest.code, 0, latest.stderr);
  assert.match(latest.stdout, /index\.html: run r1, opens from disk/);
});
