/**
 * The seal against an agent that breaks its own container's tools: for each attack of
 * `tests/workspace/seal_attacks_test.ts` (tools deleted, hanging wrappers planted on PATH, the tools
 * themselves replaced, folders replaced by files, files where the harness works), the median time
 * of a whole-container seal (a Harbor agent, root) and of a workspace checkpoint's copy (an agent
 * user whose image lets it replace its tools), against the same on an untouched container and a
 * bare `docker exec true`, measured in the same run. The acceptance: every attacked seal within 2x
 * of the untouched one.
 * Run: `deno run -P=test --quiet bench/seal_attack_bench.ts [ROUNDS]`.
 *
 * @module
 */
import { sealContainer } from "../src/workspace/container_seal.ts";
import { Docker } from "../src/engine/docker.ts";
import { DockerSandbox } from "../src/engine/docker_sandbox.ts";
import type { ContainerSpec, SandboxContainer } from "../src/engine/sandbox.ts";
import { ATTACKS } from "../tests/workspace/_seal_attacks.ts";
import { median } from "./_measure.ts";

const ROUNDS = Number(Deno.args[0] ?? 5);
const docker = new Docker({ PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin" });
await docker.ping();
const sandbox = new DockerSandbox(docker);
const LABELS = { "verdict.run": "bench-seal-attacks" };
// What an honest Harbor agent changes (the system fixture's solution).
const HONEST = "echo greeting=hello > /etc/greet.conf && rm -f /etc/issue && " +
  "printf '#!/bin/sh\\necho hi\\n' > /usr/local/bin/greet && chmod 755 /usr/local/bin/greet";
const WORKSPACE_ATTACKS = [
  "delete tar, cp, mkdir, head, bash and sh",
  "plant hanging tar, sh and head wrappers on PATH",
  "replace the tools themselves with hanging ones",
];

function spec(harbor: boolean): ContainerSpec {
  return {
    image: "verdict/python:3.11",
    workdir: harbor ? "/root" : "/workspace",
    network: "none",
    labels: LABELS,
    user: harbor ? "0:0" : "1000:1000",
    channel: true,
    ...(harbor ? { capabilities: "engine-default" } : {}),
  };
}

async function prepared(harbor: boolean, attack: string): Promise<SandboxContainer> {
  const container = await sandbox.start(spec(harbor));
  try {
    await attacked(container, harbor, attack);
  } catch (error) {
    await container.remove();
    throw error;
  }
  return container;
}

async function attacked(container: SandboxContainer, harbor: boolean, attack: string) {
  const setup = await container.exec(
    `${harbor ? `${HONEST} && ` : ""}chmod 777 /usr/bin /usr/local/bin && ` +
      "chmod 777 /usr/bin/tar /usr/bin/head",
    { timeoutMs: 60_000, user: "0:0" },
  );
  if (setup.exitCode !== 0) throw new Error(setup.stderr);
  const work = harbor ? "true" : "echo honest > /workspace/work.txt";
  const done = await container.exec(`{ ${work} && ${attack || "true"}; } >/dev/null 2>&1`, {
    timeoutMs: 60_000,
  });
  if (done.exitCode !== 0) throw new Error(`the attack failed: ${attack}`);
}

async function timed(work: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await work();
  return performance.now() - start;
}

async function harborSeal(attack: string): Promise<number> {
  const container = await prepared(true, attack);
  try {
    return await timed(() => sealContainer(container));
  } finally {
    await container.remove();
  }
}

// Two copies, as checkpoints make them: the first while root's channel opens, then through it.
async function workspaceCopies(attack: string): Promise<number> {
  const container = await prepared(false, attack);
  try {
    await container.copyOut("/workspace");
    await new Promise((resolve) => setTimeout(resolve, 500));
    return await timed(() => container.copyOut("/workspace"));
  } finally {
    await container.remove();
  }
}

async function floor(): Promise<number> {
  const container = await sandbox.start(spec(true));
  try {
    return await timed(() => docker.run(["exec", container.id, "true"]));
  } finally {
    await container.remove();
  }
}

const samples = new Map<string, number[]>();
const add = (key: string, ms: number) => samples.set(key, [...samples.get(key) ?? [], ms]);
for (let round = 0; round < ROUNDS; round++) {
  add("floor", await floor());
  add("harbor untouched", await harborSeal(""));
  for (const [name, attack] of Object.entries(ATTACKS)) {
    add(`harbor ${name}`, await harborSeal(attack));
  }
  add("workspace untouched", await workspaceCopies(""));
  for (const name of WORKSPACE_ATTACKS) {
    add(`workspace ${name}`, await workspaceCopies(ATTACKS[name]));
  }
}
const bare = median(samples.get("floor")!);
console.log(`bare docker exec: median ${bare.toFixed(0)} ms (${ROUNDS} rounds)`);
for (const kind of ["harbor", "workspace"]) {
  const untouched = median(samples.get(`${kind} untouched`)!);
  console.log(
    `${kind} untouched: ${untouched.toFixed(0)} ms, ${(untouched / bare).toFixed(2)}x the floor`,
  );
  for (const [key, values] of samples) {
    if (!key.startsWith(`${kind} `) || key.endsWith("untouched")) continue;
    const ms = median(values);
    console.log(
      `  ${key.slice(kind.length + 1)}: ${ms.toFixed(0)} ms, ${(ms / untouched).toFixed(2)}x ` +
        `untouched, ${(ms / bare).toFixed(2)}x the floor${ms > 2 * untouched ? "  OVER 2x" : ""}`,
    );
  }
}
