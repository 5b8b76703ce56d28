/**
 * scripts/cpu_by_part.sh, which CI runs around the test step: where it cannot measure it says so
 * and changes nothing; where it can, it moves only the engine's own processes and the step's, and
 * reports each part's CPU from the accounting. Its cgroup root and the engine's pid file point at
 * a folder of the test's own, so nothing of the machine is touched.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { scratchDir } from "../_verdict.ts";

const SCRIPT = "scripts/cpu_by_part.sh";

async function script(args: string[], env: Record<string, string>) {
  const output = await new Deno.Command("sh", { args: [SCRIPT, ...args], env }).output();
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { code: output.code, stdout: decode(output.stdout), stderr: decode(output.stderr) };
}

Deno.test("cpu_by_part: without a cpuacct hierarchy of its own it measures nothing and says so", async () => {
  await using scratch = await scratchDir("cpu-by-part-none");
  const root = join(scratch.path, "cpuacct");
  const state = join(scratch.path, "state");
  await Deno.mkdir(join(root, "docker"), { recursive: true });
  await Deno.writeTextFile(join(root, "cpuacct.usage"), "0\n");
  await Deno.writeTextFile(join(root, "cpu.shares"), "1024\n"); // cpu co-mounted: no measuring
  const env = { CPU_BY_PART_ROOT: root, CPU_BY_PART_PIDFILE: join(scratch.path, "docker.pid") };
  await Deno.writeTextFile(env.CPU_BY_PART_PIDFILE, `${Deno.pid}\n`);

  const started = await script(["start", String(Deno.pid), state], env);
  assert.equal(started.code, 0, started.stderr);
  assert.match(started.stdout, /^CPU by part: not measured \(needs root, cgroup v1/);
  assert.deepEqual(
    (await Array.fromAsync(Deno.readDir(root))).map((entry) => entry.name).sort(),
    ["cpu.shares", "cpuacct.usage", "docker"],
    "no cgroup was made",
  );
  const reported = await script(["report", state], env);
  assert.equal(reported.stdout, "CPU by part: not measured\n");
  assert.equal((await script(["start"], env)).code, 2);
});

Deno.test("cpu_by_part: it moves the engine of the pid file and the step, and reports each part from the accounting", async () => {
  await using scratch = await scratchDir("cpu-by-part-measured");
  const root = join(scratch.path, "cpuacct");
  const state = join(scratch.path, "state");
  const pidfile = join(scratch.path, "docker.pid");
  const usage = (folder: string, ns: number) =>
    Deno.mkdir(join(root, folder), { recursive: true }).then(() =>
      Deno.writeTextFile(join(root, folder, "cpuacct.usage"), `${ns}\n`)
    );
  await usage(".", 0);
  await usage("docker", 1e9);
  await usage("verdict-engine", 2e9);
  await usage("verdict-step", 3e9);
  // A stand-in for dockerd, whose pid the file names, with a child named containerd.
  const containerd = join(scratch.path, "containerd");
  await Deno.copyFile("/bin/sleep", containerd);
  await Deno.chmod(containerd, 0o755);
  const engine = new Deno.Command("sh", { args: ["-c", `${containerd} 30 & wait`] }).spawn();
  try {
    await Deno.writeTextFile(pidfile, `${engine.pid}\n`);
    let child = "";
    for (let tries = 0; tries < 50 && child === ""; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      const listed = await new Deno.Command("sh", {
        args: ["-c", `pgrep -P ${engine.pid} -x containerd || true`],
      }).output();
      child = new TextDecoder().decode(listed.stdout).trim();
    }
    const env = { CPU_BY_PART_ROOT: root, CPU_BY_PART_PIDFILE: pidfile, PATH: "/usr/bin:/bin" };
    const started = await script(["start", "4242", state], env);
    assert.equal(started.code, 0, started.stderr);
    assert.equal(started.stdout, "");
    const moved = (folder: string) => Deno.readTextFile(join(root, folder, "cgroup.procs"));
    assert.equal(
      await moved("verdict-engine"),
      `${engine.pid}\n${child}\n`,
      "only the pid file's dockerd and its containerd",
    );
    assert.equal(await moved("verdict-step"), "4242\n");

    await usage("docker", 4e9); // the containers used 3 s, the engine 1.5 s, the step 10 s
    await usage("verdict-engine", 3.5e9);
    await usage("verdict-step", 13e9);
    const reported = await script(["report", state], env);
    assert.equal(reported.code, 0, reported.stderr);
    assert.match(reported.stdout, /count every user of the engine/);
    assert.match(reported.stdout, /^\s+1\.5 CPU-s\s+\d+%\s+Docker engine/m);
    assert.match(reported.stdout, /^\s+10\.0 CPU-s\s+\d+%\s+the step's processes/m);
    assert.match(reported.stdout, /^\s+3\.0 CPU-s\s+\d+%\s+the containers' own processes/m);
    assert.match(reported.stdout, /^\s+[\d.]+ CPU-s\s+\d+%\s+in all$/m);
  } finally {
    // Its containerd first: the shell that waits on it then ends by itself.
    await new Deno.Command("sh", { args: ["-c", `pkill -P ${engine.pid} || true`] }).output();
    await engine.status;
  }
});

Deno.test("cpu_by_part: a dockerd whose containerd is not its child is not measured, and says so", async () => {
  await using scratch = await scratchDir("cpu-by-part-no-containerd");
  const root = join(scratch.path, "cpuacct");
  await Deno.mkdir(join(root, "docker"), { recursive: true });
  await Deno.writeTextFile(join(root, "cpuacct.usage"), "0\n");
  const pidfile = join(scratch.path, "docker.pid");
  await Deno.writeTextFile(pidfile, `${Deno.pid}\n`); // this process: no containerd child
  const env = { CPU_BY_PART_ROOT: root, CPU_BY_PART_PIDFILE: pidfile, PATH: "/usr/bin:/bin" };
  const started = await script(["start", "4242", join(scratch.path, "state")], env);
  assert.match(started.stdout, /^CPU by part: not measured \(no containerd runs under the dockerd/);
  assert.equal(
    (await script(["report", join(scratch.path, "state")], env)).stdout,
    "CPU by part: not measured\n",
  );
});
