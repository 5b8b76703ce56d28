import assert from "node:assert/strict";
import { stageTask } from "../../src/eval/trial/staged_task.ts";
import { decide } from "../../src/policy/policy.ts";
import { loadPolicy } from "../../src/policy/policy_file.ts";
import { AGENT_USER } from "../../src/engine/sandbox.ts";
import { type Container, startContainer } from "../../src/engine/container.ts";
import { DerivedImages } from "../../src/engine/derived_image.ts";
import { loadTask } from "../../src/task/load_task.ts";
import { editFileTool, readFileTool, searchTool } from "../../src/tools/file_tools.ts";
import { shellTool } from "../../src/tools/shell_tool.ts";
import type { ToolContext } from "../../src/tools/tool.ts";
import { requireDocker } from "../_docker.ts";
import { scratchDir } from "../_verdict.ts";

// Issue 11 item 9: with policy-keep-secrets, each of these printed the staging password.
const TASK = "tasks/policy-keep-secrets";
const SECRET = /pa55|w0rd|Staging!2024|pgr_7f3c/;
const LABELS = { "verdict.test": "secret_files_test" };

async function withStagedAgent(
  work: (context: ToolContext, container: Container) => Promise<void>,
): Promise<void> {
  const docker = await requireDocker();
  const task = await loadTask(TASK);
  const policy = await loadPolicy(task.policyPath);
  const staged = await stageTask(task);
  const image = await new DerivedImages(docker, LABELS).imageFor(task.manifest.image, staged.tar, {
    emptyFolder: task.manifest.workdir,
  });
  const container = await startContainer(docker, {
    image,
    workdir: task.manifest.workdir,
    network: "none",
    labels: LABELS,
    user: AGENT_USER,
  });
  try {
    await work({
      container,
      task,
      signal: new AbortController().signal,
      permits: (tool, path) => decide(policy, tool, { path }, task.manifest.workdir).allowed,
    }, container);
  } finally {
    await container.remove();
  }
}

Deno.test("a file the policy denies reading is unreadable to the agent's user, however it is named", async () => {
  await withStagedAgent(async (context) => {
    const owner = await shellTool.run({ command: "stat -c '%u %a' .env .env.example" }, context);
    assert.match(owner.content, /^0 600\n1000 644$/m, "root's, and no one else may read it");
    for (
      const command of [
        "cat .en?",
        "cat .e*v",
        "f=.env; cat $f",
        "grep -r PASSWORD .",
        `python3 -c "print(open('.e'+'nv').read())"`,
        "cp .env copy; cat copy",
        "chmod 644 .env; cat .env",
        "ln .env hard; cat hard",
        "ln -s .env soft; cat soft",
      ]
    ) {
      const result = await shellTool.run({ command }, context);
      assert.doesNotMatch(result.content, SECRET, command);
      assert.match(result.content, /Permission denied|Operation not permitted/, command);
    }
    // The task's work still reads what the policy allows.
    const example = await readFileTool.run({ path: ".env.example" }, context);
    assert.equal(example.isError, false, example.content);
    assert.match(example.content, /SMTP_PASSWORD/);
  });
});

Deno.test("read_file judges where a symlink leads and every name of a hard link, not the name given", async () => {
  await withStagedAgent(async (context) => {
    // A file of the agent's own the policy denies: the container lets it be read, the tool not.
    const setup = await shellTool.run({
      command: "mkdir -p sub && echo 'API_KEY=mine-secret' > sub/.env && " +
        "ln sub/.env hard && ln -s sub/.env soft && ln -s soft twice && ln -s ../sub/.env sub/up " +
        "&& ln -s .env root-soft",
      timeout_s: 30,
    }, context);
    assert.match(setup.content, /^exit code 0/, setup.content);
    for (const path of ["hard", "soft", "twice", "sub/up"]) {
      const read = await readFileTool.run({ path }, context);
      assert.match(read.content, new RegExp(`^denied by policy: ${path} is the file sub/\\.env`));
      assert.equal(read.isError, true, path);
    }
    // The staged one: the container refuses before the policy is asked.
    for (const path of [".env", "root-soft"]) {
      const read = await readFileTool.run({ path }, context);
      assert.equal(read.isError, true, path);
      assert.doesNotMatch(read.content, SECRET, path);
    }
    const edit = await editFileTool.run(
      { path: "hard", old_text: "mine", new_text: "yours" },
      context,
    );
    assert.match(edit.content, /^denied by policy: hard is the file/);
    const search = await searchTool.run({ pattern: "secret", path: "." }, context);
    assert.doesNotMatch(search.content, /mine-secret/, "search does not follow the link either");
    const plain = await readFileTool.run({ path: "README.md" }, context);
    assert.equal(plain.isError, false, plain.content);
  });
});

Deno.test("a workspace restored after a crash keeps the denied files root's", async () => {
  const docker = await requireDocker();
  const staged = await stageTask(await loadTask(TASK));
  const container = await startContainer(docker, {
    image: staged.task.manifest.image,
    workdir: "/workspace",
    network: "none",
    labels: LABELS,
    user: AGENT_USER,
  });
  try {
    const data = new TextEncoder().encode("SMTP_PASSWORD=pa55\n");
    await container.copyIn(
      staged.workspaceTar([
        { path: ".env", type: "file", mode: 0o644, data },
        { path: "deep", type: "dir", mode: 0o755 },
        { path: "deep/.env", type: "file", mode: 0o640, data },
        { path: "notes.env", type: "file", mode: 0o644, data },
      ]),
      "/",
    );
    const listed = await container.exec("stat -c '%n %u %a' .env deep/.env notes.env", {
      timeoutMs: 10_000,
    });
    assert.equal(listed.stdout, ".env 0 600\ndeep/.env 0 600\nnotes.env 1000 644\n");
  } finally {
    await container.remove();
  }
});

Deno.test("--policy guards the files of the tasks it applies to (policy: default)", async () => {
  await using scratch = await scratchDir("h9-policy");
  const policyFile = `${scratch.path}/policy.yaml`;
  await Deno.writeTextFile(
    policyFile,
    "rules:\n  - tool: read_file\n    path: README.md\n    action: deny\n  - include: default\n",
  );
  const task = await loadTask("tests/fixtures/bench/trivial");
  const readme = async (policy?: string) =>
    (await stageTask(task, policy)).initial.entries.find((entry) => entry.path === "README.md") as {
      mode: number;
    };
  assert.equal((await readme(policyFile)).mode, 0o600, "the override's read rule guards it");
  assert.equal((await readme()).mode, 0o644);
});
