import assert from "node:assert/strict";
import { AGENT_USER } from "../../src/engine/sandbox.ts";
import { type Container, startContainer } from "../../src/engine/container.ts";
import { packTar } from "../../src/engine/tar.ts";
import { loadTask } from "../../src/task/load_task.ts";
import { confinePath } from "../../src/tools/confine.ts";
import { readDocsTool } from "../../src/tools/docs_tool.ts";
import {
  editFileTool,
  listDirTool,
  readFileTool,
  searchTool,
  writeFileTool,
} from "../../src/tools/file_tools.ts";
import { shellTool } from "../../src/tools/shell_tool.ts";
import type { ToolContext } from "../../src/tools/tool.ts";
import { decide } from "../../src/policy/policy.ts";
import { loadPolicy } from "../../src/policy/policy_file.ts";
import { requireDocker } from "../_docker.ts";

Deno.test("lexical confinement: .. out and absolute paths elsewhere are refused", () => {
  assert.equal(confinePath("/workspace", "src/../a.py"), "a.py");
  assert.equal(confinePath("/workspace", "/workspace"), ".");
  assert.equal(confinePath("/workspace", "/workspace/src/"), "src");
  assert.equal(confinePath("/workspace", ""), ".");
  for (const path of ["..", "../x", "src/../../x", "/etc/passwd", "/workspace2/a", "/", "a\0b"]) {
    assert.equal(typeof confinePath("/workspace", path), "object", path);
  }
});

async function withWorkspace(
  work: (context: ToolContext, container: Container) => Promise<void>,
): Promise<void> {
  const docker = await requireDocker();
  const task = await loadTask("tests/fixtures/bench/trivial");
  const container = await startContainer(docker, {
    image: "verdict/busybox",
    workdir: "/workspace",
    network: "none",
    labels: { "verdict.test": "tools_test" },
    user: AGENT_USER,
  });
  try {
    const text = (value: string) => new TextEncoder().encode(value);
    await container.copyIn(
      packTar([
        { path: "workspace", type: "dir", mode: 0o755 },
        { path: "workspace/src", type: "dir", mode: 0o755 },
        {
          path: "workspace/src/app.py",
          type: "file",
          mode: 0o644,
          data: text("def add(a, b):\n    return a - b\n"),
        },
        { path: "workspace/notes.md", type: "file", mode: 0o644, data: text("one\ntwo\nthree\n") },
        { path: "workspace/out", type: "symlink", target: "/etc" },
        { path: "workspace/passwd", type: "symlink", target: "/etc/passwd" },
        { path: "workspace/inside", type: "symlink", target: "src/app.py" },
      ], { uid: 1000, gid: 1000 }),
      "/",
    );
    await work(
      { container, task, signal: new AbortController().signal, permits: () => true },
      container,
    );
  } finally {
    await container.remove();
  }
}

Deno.test("file tools read, write, edit, list and search inside the workspace", async () => {
  await withWorkspace(async (context) => {
    assert.deepEqual(await readFileTool.run({ path: "notes.md", offset: 2, limit: 1 }, context), {
      content: "two",
      isError: false,
    });
    assert.equal(
      (await readFileTool.run({ path: "inside" }, context)).content,
      "def add(a, b):\n    return a - b\n",
    );
    assert.equal(
      (await writeFileTool.run({ path: "new/deep/file.txt", content: "hello" }, context)).isError,
      false,
    );
    assert.equal(
      (await readFileTool.run({ path: "/workspace/new/deep/file.txt" }, context)).content,
      "hello",
    );
    const edit = await editFileTool.run({
      path: "src/app.py",
      old_text: "a - b",
      new_text: "a + b",
    }, context);
    assert.deepEqual(edit, { content: "replaced 1 occurrence(s) in src/app.py", isError: false });
    assert.match(
      (await editFileTool.run({ path: "src/app.py", old_text: "nope", new_text: "x" }, context))
        .content,
      /does not occur/,
    );
    const listing = await listDirTool.run({}, context);
    assert.deepEqual(listing.content.split("\n"), [
      "inside",
      "new/",
      "new/deep/",
      "notes.md",
      "out",
      "passwd",
      "src/",
      "src/app.py",
    ]);
    const search = await searchTool.run({ pattern: "return a \\+ b" }, context);
    assert.equal(search.content, "src/app.py:2:    return a + b");
    assert.equal((await searchTool.run({ pattern: "zzz" }, context)).content, "no matches");
  });
});

Deno.test("a search leaves out the files the policy denies searching, even from a search of '.'", async () => {
  const policy = await loadPolicy("tasks/policy-keep-secrets/policy.yaml");
  await withWorkspace(async (base) => {
    const context = {
      ...base,
      permits: (tool: string, path: string) => decide(policy, tool, { path }, "/workspace").allowed,
    };
    for (
      const [path, content] of [
        [".env", "API_KEY=live-secret\n"],
        ["src/.env", "API_KEY=nested-secret\n"],
        [".env:1:x", "API_KEY=not-the-env-file, slices a[1:10:2]\n"],
        ["config.example", "API_KEY=placeholder\n"],
      ]
    ) {
      assert.equal((await writeFileTool.run({ path, content }, context)).isError, false, path);
    }
    const note = "[not searched, the policy denies searching them: .env, src/.env]";
    const search = await searchTool.run({ pattern: "API_KEY" }, context);
    assert.equal(
      search.content,
      ".env:1:x:1:API_KEY=not-the-env-file, slices a[1:10:2]\n" +
        "config.example:1:API_KEY=placeholder\n" + note,
      "a name or a line holding `:N:` is read right",
    );
    // Whether a denied file matches never shows: no pattern can probe it.
    for (const probe of ["^API_KEY=live-s", "^API_KEY=live-x"]) {
      assert.equal(
        (await searchTool.run({ pattern: probe }, context)).content,
        `no matches\n${note}`,
      );
    }
    assert.equal(
      (await searchTool.run({ pattern: "API_KEY", glob: "*.example" }, context)).content,
      `config.example:1:API_KEY=placeholder\n${note}`,
    );
    const unfiltered = await searchTool.run({ pattern: "API_KEY" }, base);
    assert.match(
      unfiltered.content,
      /live-secret/,
      "without the policy the same search finds .env",
    );
  });
});

Deno.test("every escape route out of the workspace is refused with a clear tool error", async () => {
  await withWorkspace(async (context, container) => {
    const refusals = [
      await readFileTool.run({ path: "../etc/passwd" }, context),
      await readFileTool.run({ path: "/etc/passwd" }, context),
      await readFileTool.run({ path: "passwd" }, context),
      await readFileTool.run({ path: "out/hostname" }, context),
      await writeFileTool.run({ path: "out/evil", content: "x" }, context),
      await writeFileTool.run({ path: "src/../../tmp/evil", content: "x" }, context),
      await editFileTool.run({ path: "passwd", old_text: "root", new_text: "toor" }, context),
      await listDirTool.run({ path: "out" }, context),
      await searchTool.run({ pattern: "root", path: "out" }, context),
      await listDirTool.run({ path: "/" }, context),
    ];
    const wide = await searchTool.run({ pattern: "root" }, context);
    assert.equal(wide.content, "no matches", "search does not follow links out of the workspace");
    for (const result of refusals) {
      assert.equal(result.isError, true, result.content);
      assert.match(
        result.content,
        /outside the workdir|leaves the workdir|leads out of the workdir through a symlink/,
        result.content,
      );
    }
    const leaked = await container.exec("ls -a /tmp /etc", { timeoutMs: 10_000 });
    assert.equal(leaked.exitCode, 0, leaked.stderr);
    assert.match(leaked.stdout, /passwd/, "the listing really covers /etc");
    assert.ok(!leaked.stdout.includes("evil"), "nothing was written outside");
  });
});

Deno.test("shell runs in the workspace; long output keeps head and tail; timeouts are reported", async () => {
  await withWorkspace(async (context) => {
    const ok = await shellTool.run({ command: "pwd; echo err >&2; exit 3" }, context);
    assert.deepEqual(ok, {
      content: "exit code 3\n--- stdout ---\n/workspace\n--- stderr ---\nerr",
      isError: false,
    });
    const long = await shellTool.run({ command: "echo FIRST; seq 1 20000; echo LAST" }, context);
    assert.ok(long.content.includes("FIRST") && long.content.trimEnd().endsWith("LAST"));
    assert.match(long.content, /\[\.\.\. \d+ characters omitted \.\.\.\]/);
    assert.ok(long.content.length < 12_200);
    const slow = await shellTool.run({ command: "sleep 30", timeout_s: 1 }, context);
    assert.deepEqual(slow, { content: "the command ran past 1 s and was killed", isError: true });
  });
});

Deno.test("read_docs serves only the task's listed pages", async () => {
  const task = await loadTask("tasks/docs-service-config");
  const context = {
    task,
    container: undefined as unknown as Container,
    signal: new AbortController().signal,
    permits: () => true,
  };
  const pages = task.manifest.docs!;
  assert.equal((await readDocsTool.run({}, context)).content, `pages: ${pages.join(", ")}`);
  assert.equal((await readDocsTool.run({ page: pages[0] }, context)).isError, false);
  assert.match(
    (await readDocsTool.run({ page: "task.yaml" }, context)).content,
    /no page 'task\.yaml'/,
  );
  const trivial = { ...context, task: await loadTask("tests/fixtures/bench/trivial") };
  assert.deepEqual(await readDocsTool.run({ page: "x" }, trivial), {
    content: "this task has no documentation pages",
    isError: true,
  });
});
