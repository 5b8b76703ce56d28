import assert from "node:assert/strict";
import { InfrastructureError } from "../../src/core/errors.ts";
import { parseDockerDiff } from "../../src/engine/docker_diff.ts";
import { type ContainerSeal, sealContainer } from "../../src/workspace/container_seal.ts";
import { DockerSandbox } from "../../src/engine/docker_sandbox.ts";
import type { SandboxContainer } from "../../src/engine/sandbox.ts";
import {
  sealGuard,
  type SnapshotEntry,
  WorkspaceLimitError,
} from "../../src/workspace/snapshot.ts";
import { UnsealableWorkspaceError } from "../../src/engine/unsealable.ts";
import { requireDocker } from "../_docker.ts";

const LABEL = { "verdict.test": "container-seal" };

// A root container as a Harbor task's agent gets one.
async function withRootContainer(work: (container: SandboxContainer) => Promise<void>) {
  const sandbox = new DockerSandbox(await requireDocker());
  const container = await sandbox.start({
    image: "verdict/python:3.11",
    workdir: "/root",
    network: "none",
    labels: LABEL,
    user: "0:0",
    capabilities: "engine-default",
  });
  try {
    await work(container);
  } finally {
    await container.remove();
  }
}

async function run(container: SandboxContainer, script: string): Promise<string> {
  const result = await container.exec(script, { timeoutMs: 30_000 });
  assert.equal(result.exitCode, 0, `${script}\n${result.stderr}`);
  return result.stdout;
}

function entry(seal: ContainerSeal, path: string): SnapshotEntry | undefined {
  return seal.sealed.entries.find((candidate) => candidate.path === path);
}

function fileText(seal: ContainerSeal, path: string): string {
  const found = entry(seal, path);
  assert.equal(found?.type, "file", `${path} is sealed as a file`);
  if (found?.type !== "file") throw new Error("unreachable");
  return new TextDecoder().decode(seal.sealed.contents.get(found.sha256));
}

// Starts a loop, out of the exec's session, that appends to /root/ticks ten times a second.
const TICKER = "setsid sh -c 'while :; do date >> /root/ticks; sleep 0.1; done' " +
  ">/dev/null 2>&1 </dev/null &";

async function ticksSize(container: SandboxContainer): Promise<number> {
  return Number((await run(container, "wc -c < /root/ticks")).trim());
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

// The command lines of every live process outside this exec's own session.
const OTHER_PROCESSES = `self=$(read -r line < /proc/$$/stat; set -- \${line##*) }; echo "$4")
for stat in /proc/[0-9]*/stat; do
  read -r line < "$stat" 2>/dev/null || continue
  set -- \${line##*) }
  [ "$4" = "$self" ] || [ "$1" = Z ] && continue
  pid=\${stat#/proc/}; tr '\\0' ' ' < "/proc/\${pid%/stat}/cmdline"; echo
done`;

Deno.test("the seal holds what was added, modified, deleted and linked, relative to /, and reports no parent that changed only through a child", async () => {
  await withRootContainer(async (container) => {
    await run(
      container,
      [
        "echo new > /root/new.txt",
        "echo tampered >> /etc/issue.net",
        "rm /etc/debian_version",
        "mkdir -p /opt/tree/a/b && echo deep > /opt/tree/a/b/f && echo top > /opt/tree/g",
        "ln -s /etc/passwd /root/link",
      ].join(" && "),
    );
    const seal = await sealContainer(container);
    assert.deepEqual(
      seal.changes.map((change) => `${change.change} ${change.path}`).sort(),
      [
        "added opt/tree",
        "added opt/tree/a",
        "added opt/tree/a/b",
        "added opt/tree/a/b/f",
        "added opt/tree/g",
        "added root/link",
        "added root/new.txt",
        "modified etc/issue.net",
        "removed etc/debian_version",
      ],
    );
    assert.deepEqual(seal.sealed.entries.map((sealed) => `${sealed.type} ${sealed.path}`), [
      "removed etc/debian_version",
      "file etc/issue.net",
      "dir opt/tree",
      "dir opt/tree/a",
      "dir opt/tree/a/b",
      "file opt/tree/a/b/f",
      "file opt/tree/g",
      "symlink root/link",
      "file root/new.txt",
    ]);
    assert.equal(fileText(seal, "root/new.txt"), "new\n");
    assert.match(fileText(seal, "etc/issue.net"), /tampered\n$/);
    assert.equal(fileText(seal, "opt/tree/a/b/f"), "deep\n");
    assert.deepEqual(entry(seal, "root/link"), {
      path: "root/link",
      type: "symlink",
      target: "/etc/passwd",
    });
  });
});

Deno.test("the seal leaves out /verdict, /tmp and the engine's docker-init", async () => {
  await withRootContainer(async (container) => {
    await run(
      container,
      "mkdir -p /verdict/kit && echo x > /verdict/kit/planted && echo t > /tmp/scratch && " +
        "echo kept > /root/kept.txt",
    );
    const listed = (await container.changes()).map((change) => change.path);
    assert.ok(
      listed.some((path) => path.endsWith("/docker-init")),
      `docker diff shows the engine's init: ${listed.join(" ")}`,
    );
    assert.ok(listed.includes("/verdict/kit/planted"), "docker diff shows /verdict");
    const seal = await sealContainer(container);
    const paths = [
      ...seal.changes.map((change) => change.path),
      ...seal.sealed.entries.map((sealed) => sealed.path),
    ];
    const leaked = paths.filter((path) =>
      path === "verdict" || path.startsWith("verdict/") || path === "tmp" ||
      path.startsWith("tmp/") || path.endsWith("docker-init") || path === "usr" ||
      path === "usr/sbin"
    );
    assert.deepEqual(leaked, []);
    assert.deepEqual(seal.changes.map((change) => change.path), ["root/kept.txt"]);
  });
});

Deno.test("the final seal kills a process the agent left in the background", async () => {
  await withRootContainer(async (container) => {
    await run(container, TICKER);
    await pause(500);
    const before = await ticksSize(container);
    await pause(500);
    assert.ok(await ticksSize(container) > before, "the ticker runs before the seal");
    const seal = await sealContainer(container);
    assert.ok(seal.changes.some((change) => change.path === "root/ticks"));
    const after = await ticksSize(container);
    await pause(800);
    assert.equal(await ticksSize(container), after, "/root/ticks grew after the seal");
    const processes = (await run(container, OTHER_PROCESSES)).split("\n")
      .map((line) => line.trim()).filter((line) => line !== "").sort();
    assert.deepEqual(processes, ["/sbin/docker-init -- sleep infinity", "sleep infinity"]);
  });
});

Deno.test("a checkpoint seal (final: false) leaves the agent's processes running", async () => {
  await withRootContainer(async (container) => {
    await run(container, TICKER);
    await pause(300);
    const seal = await sealContainer(container, undefined, { final: false });
    assert.ok(entry(seal, "root/ticks"), "the ticks file is sealed");
    const after = await ticksSize(container);
    await pause(800);
    assert.ok(await ticksSize(container) > after, "the ticker still runs after a checkpoint");
  });
});

Deno.test("a container whose tar is broken is still sealed, the fake tar among its changes", async () => {
  await withRootContainer(async (container) => {
    await run(
      container,
      "printf '#!/bin/sh\\nexit 1\\n' > /usr/bin/tar && chmod 755 /usr/bin/tar && " +
        "echo work > /root/work.txt && ln -s work.txt /root/work.link",
    );
    const seal = await sealContainer(container);
    assert.deepEqual(
      seal.changes.map((change) => `${change.change} ${change.path}`).sort(),
      ["added root/work.link", "added root/work.txt", "modified usr/bin/tar"],
    );
    assert.equal(fileText(seal, "root/work.txt"), "work\n");
    assert.equal(fileText(seal, "usr/bin/tar"), "#!/bin/sh\nexit 1\n");
    assert.deepEqual(entry(seal, "root/work.link"), {
      path: "root/work.link",
      type: "symlink",
      target: "work.txt",
    });
  });
});

Deno.test("a lying archive cannot add an unchanged file to the seal: entries are held to docker diff", async () => {
  await withRootContainer(async (container) => {
    await run(container, "echo honest > /root/honest.txt");
    // What a root agent that swapped the helper between its copy and its run could make it say.
    const passwd = {
      path: "./etc/passwd",
      type: "file" as const,
      mode: 0o644,
      data: new Uint8Array([1]),
    };
    const lying = new Proxy(container, {
      get(target, key) {
        if (key === "killAndArchive") {
          return async (...args: Parameters<SandboxContainer["killAndArchive"]>) => [
            ...await target.killAndArchive(...args),
            passwd,
          ];
        }
        const value = Reflect.get(target, key, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const seal = await sealContainer(lying);
    assert.equal(entry(seal, "etc/passwd"), undefined, "etc/passwd was sealed");
    assert.ok(!seal.changes.some((change) => change.path.startsWith("etc")));
    assert.equal(fileText(seal, "root/honest.txt"), "honest\n");
  });
});

Deno.test("a tar wrapper planted on PATH is not what the seal runs", async () => {
  await withRootContainer(async (container) => {
    await run(
      container,
      `printf '#!/bin/sh\\nexec /usr/bin/tar "$@" etc/passwd\\n' > /usr/local/bin/tar && ` +
        "chmod 755 /usr/local/bin/tar && echo honest > /root/honest.txt",
    );
    const archived = await container.killAndArchive(["/root/honest.txt"], []);
    assert.deepEqual(archived.map((found) => found.path), ["./root/honest.txt"]);
  });
});

Deno.test("the admit guard stops a seal past its limit, and the fallback does not swallow it", async () => {
  await withRootContainer(async (container) => {
    await run(
      container,
      "mkdir /root/many && for i in $(seq 20); do echo $i > /root/many/$i; done",
    );
    await assert.rejects(
      () => sealContainer(container, sealGuard("/", { max_workspace_files: 5 })),
      (error: unknown) => {
        assert.ok(error instanceof WorkspaceLimitError, String(error));
        assert.ok(error instanceof UnsealableWorkspaceError);
        assert.match(error.message, /more than 5 files/);
        return true;
      },
    );
  });
});

Deno.test("the admit guard also stops the engine's copies when the helper cannot be copied in", async () => {
  await withRootContainer(async (container) => {
    await run(
      container,
      "mkdir -p /verdict/engine/busybox/in-the-way && " +
        "mkdir /root/many && for i in $(seq 20); do echo $i > /root/many/$i; done",
    );
    await assert.rejects(
      () => sealContainer(container, sealGuard("/", { max_workspace_files: 5 })),
      WorkspaceLimitError,
    );
  });
});

Deno.test("parseDockerDiff refuses a line it cannot read", () => {
  assert.deepEqual(parseDockerDiff("A /a b\n\nD /c\n"), [
    { kind: "added", path: "/a b" },
    { kind: "deleted", path: "/c" },
  ]);
  for (const line of ["X /etc", "A etc", "A/etc", "C  /etc", "added /etc"]) {
    assert.throws(
      () => parseDockerDiff(`C /etc\n${line}\n`),
      (error: unknown) =>
        error instanceof InfrastructureError && error.message.includes(line) &&
        /docker diff printed a line/.test(error.message),
      line,
    );
  }
});

// What sealing an end state did: sealed, refused as the agent's, or failed as infrastructure.
async function sealOutcome(container: SandboxContainer): Promise<string> {
  try {
    await sealContainer(container);
    return "sealed";
  } catch (error) {
    if (error instanceof UnsealableWorkspaceError) return "refused as the agent's";
    return `${(error as Error).name}: ${(error as Error).message}`;
  }
}

Deno.test("a file name with a newline is sealed or refused as the agent's, never an infrastructure failure", async () => {
  await withRootContainer(async (container) => {
    await run(container, `touch "/root/$(printf 'two\\nlines')"`);
    assert.match(await sealOutcome(container), /^(sealed|refused as the agent's)$/);
  });
});

Deno.test("a file name that is not UTF-8 is sealed or refused as the agent's, never an infrastructure failure", async () => {
  await withRootContainer(async (container) => {
    await run(container, `touch "/root/$(printf 'bad\\377name')"`);
    assert.match(await sealOutcome(container), /^(sealed|refused as the agent's)$/);
  });
});

Deno.test("a folder changed only in its metadata is sealed alone: its unchanged contents count toward no limit", async () => {
  await withRootContainer(async (container) => {
    // /usr/lib holds thousands of the image's entries; the agent only changed its mode.
    await run(container, "chmod 700 /usr/lib && echo kept > /root/kept.txt");
    const seal = await sealContainer(container, sealGuard("/", { max_workspace_files: 50 }));
    assert.deepEqual(seal.changes.map((change) => `${change.change} ${change.path}`).sort(), [
      "added root/kept.txt",
      "modified usr/lib",
    ]);
    assert.deepEqual(entry(seal, "usr/lib"), { path: "usr/lib", type: "dir", mode: 0o700 });
    assert.equal(seal.sealed.entries.length, 2);
  });
});
