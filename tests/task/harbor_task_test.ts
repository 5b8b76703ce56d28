import assert from "node:assert/strict";
import { join } from "node:path";
import { InputError } from "../../src/core/errors.ts";
import { isHarborTaskFolder, loadHarborTask, parseHarborToml } from "../../src/task/harbor_task.ts";
import { loadSuite } from "../../src/task/load_suite.ts";
import { scratchDir } from "../_verdict.ts";
import { runVerdictInProcess } from "../cli/_in_process.ts";
import { minimalTask, writeFiles } from "./_task_fixture.ts";

const FIXTURES = join(import.meta.dirname!, "..", "fixtures", "harbor-invalid");

/** Files of a minimal valid Harbor task (Terminal-Bench 2 style: version 1.0, a Dockerfile). */
function harborTask(toml = HARBOR_TOML): Record<string, string> {
  return {
    "task.toml": toml,
    "instruction.md": "Write hello to /app/hello.txt.\n",
    "environment/Dockerfile": "FROM verdict/busybox\nWORKDIR /app\nCOPY data.txt /app/\n",
    "environment/data.txt": "context\n",
    "tests/test.sh": "#!/bin/bash\ngrep -qx hello /app/hello.txt && echo 1 > " +
      "/logs/verifier/reward.txt || echo 0 > /logs/verifier/reward.txt\n",
    "tests/test_outputs.py": "def test_nothing():\n    pass\n",
    "solution/solve.sh": "#!/bin/bash\necho hello > /app/hello.txt\n",
  };
}

const HARBOR_TOML = [
  'version = "1.0"',
  "",
  "[metadata]",
  'author_name = "Ada"',
  'difficulty = "easy"',
  'category = "file-operations"',
  'tags = ["file", "hello"]',
  "",
  "[verifier]",
  "timeout_sec = 120.5",
  "",
  "[agent]",
  "timeout_sec = 300.0",
  "",
  "[environment]",
  "build_timeout_sec = 900.0",
  "cpus = 2",
  "memory_mb = 4096",
  "storage_mb = 10240",
  "",
].join("\n");

/** Writes a Harbor task whose files are the minimal one's with `changes` applied (null deletes). */
async function harborFolder(
  root: string,
  name: string,
  changes: Record<string, string | null> = {},
): Promise<string> {
  const files: Record<string, string> = harborTask();
  for (const [path, text] of Object.entries(changes)) {
    if (text === null) delete files[path];
    else files[path] = text;
  }
  const dir = join(root, name);
  await writeFiles(dir, files);
  return dir;
}

/** The message of the InputError loading `dir` throws (exit 2). */
async function loadProblems(dir: string): Promise<string> {
  try {
    await loadHarborTask(dir);
  } catch (error) {
    assert.ok(error instanceof InputError, String(error));
    assert.equal(error.exitCode, 2);
    return error.message;
  }
  throw new Error(`${dir} was accepted`);
}

function tomlProblems(text: string): string {
  try {
    parseHarborToml(text, "t/task.toml");
  } catch (error) {
    assert.ok(error instanceof InputError, String(error));
    return error.message;
  }
  throw new Error("the task.toml was accepted");
}

Deno.test("a Harbor task with a Dockerfile loads with a synthesised manifest", async () => {
  await using dir = await scratchDir("harbor");
  const folder = await harborFolder(dir.path, "hello-world");
  assert.ok(await isHarborTaskFolder(folder));
  const task = await loadHarborTask(folder);
  assert.equal(task.id, "hello-world");
  assert.equal(task.instruction, "Write hello to /app/hello.txt.\n");
  assert.equal(task.policyPath, "default");
  assert.equal(task.hasSolution, true);
  assert.match(task.manifest.image, /^verdict-harbor\/hello-world:[0-9a-f]{16}$/);
  assert.deepEqual(
    { ...task.manifest, image: "" },
    {
      id: "hello-world",
      category: "file-operations",
      image: "",
      workdir: "/",
      network: "none",
      limits: { max_steps: 30, timeout_s: 300, max_total_tokens: 200000, max_cost_usd: 0.5 },
      context: { max_tokens: 16000, reserve_output_tokens: 2000, strategy: "truncate" },
      policy: "default",
      success: { script: "test.sh", timeout_s: 121 },
      checks: [],
      requires: {},
    },
  );
  assert.deepEqual(task.harbor, {
    schemaVersion: "1.0",
    environment: {
      dockerfile: join(folder, "environment", "Dockerfile"),
      dockerImage: null,
      buildTimeoutSec: 900,
      cpus: 2,
      memoryMb: 4096,
      storageMb: 10240,
    },
    verifier: { timeoutSec: 120.5, env: {}, user: "root" },
    agentTimeoutSec: 300,
    solveScript: true,
    metadata: {
      author_name: "Ada",
      difficulty: "easy",
      category: "file-operations",
      tags: ["file", "hello"],
    },
  });
});

Deno.test("the image name follows every byte and mode of environment/, and nothing else", async () => {
  await using dir = await scratchDir("harbor");
  const folder = await harborFolder(dir.path, "digest");
  const image = async () => (await loadHarborTask(folder)).manifest.image;
  const first = await image();
  await Deno.writeTextFile(join(folder, "instruction.md"), "Something else.\n");
  await Deno.writeTextFile(join(folder, "tests", "test.sh"), "#!/bin/bash\nexit 0\n");
  assert.equal(await image(), first, "the instruction and tests are not the build context");
  await Deno.writeTextFile(join(folder, "environment", "data.txt"), "context!\n");
  const second = await image();
  assert.notEqual(second, first);
  await Deno.chmod(join(folder, "environment", "data.txt"), 0o755);
  assert.notEqual(await image(), second);
});

Deno.test("a docker_image task needs no environment/, and the image wins over a Dockerfile as in Harbor", async () => {
  await using dir = await scratchDir("harbor");
  const toml = 'version = "1.0"\n[environment]\ndocker_image = "verdict/python:3.11"\n';
  const folder = await harborFolder(dir.path, "prebuilt", {
    "task.toml": toml,
    "environment/Dockerfile": null,
    "environment/data.txt": null,
    "solution/solve.sh": null,
  });
  const task = await loadHarborTask(folder);
  assert.equal(task.manifest.image, "verdict/python:3.11");
  assert.equal(task.harbor?.environment.dockerfile, null);
  assert.equal(task.harbor?.environment.dockerImage, "verdict/python:3.11");
  assert.equal(task.harbor?.solveScript, false);
  assert.equal(task.hasSolution, false);
  const both = await harborFolder(dir.path, "both", { "task.toml": toml });
  const loaded = await loadHarborTask(both);
  assert.equal(loaded.manifest.image, "verdict/python:3.11");
  assert.equal(loaded.harbor?.environment.dockerfile, null, "Harbor uses docker_image unbuilt");
});

Deno.test("schema 1.1 with [task] loads, its [task] kept in the metadata", () => {
  const settings = parseHarborToml(
    [
      'schema_version = "1.1"',
      "[task]",
      'name = "harbor/hello-world"',
      'description = "Says hello"',
      'authors = [{ name = "Ada", email = "ada@example.com" }]',
      'keywords = ["trivial"]',
      "[metadata]",
      'difficulty_explanation = "Trivial"',
      "created = 2025-11-02",
      "[verifier]",
      'env = { API_KEY = "sk-test" }',
      "user = 1000",
      'network_mode = "no-network"',
      'environment_mode = "shared"',
      "[environment]",
      "allow_internet = false",
      'os = "linux"',
      "gpus = 0",
      "mcp_servers = []",
      "[solution]",
      "env = {}",
      "",
    ].join("\n"),
    "task.toml",
  );
  assert.equal(settings.schemaVersion, "1.1");
  assert.deepEqual(settings.verifier, {
    timeoutSec: 600,
    env: { API_KEY: "sk-test" },
    user: "1000",
  });
  assert.deepEqual(settings.metadata, {
    difficulty_explanation: "Trivial",
    created: "2025-11-02",
    task: {
      name: "harbor/hello-world",
      description: "Says hello",
      authors: [{ name: "Ada", email: "ada@example.com" }],
      keywords: ["trivial"],
    },
  });
  assert.equal(Object.getPrototypeOf(settings.metadata.task), Object.prototype, "plain data");
});

Deno.test("an empty 1.x task.toml gets Harbor's defaults", async () => {
  const settings = parseHarborToml('version = "1.3"\n', "task.toml");
  assert.deepEqual(settings, {
    schemaVersion: "1.3",
    environment: { dockerfile: null, dockerImage: null, buildTimeoutSec: 600 },
    verifier: { timeoutSec: 600, env: {}, user: "root" },
    agentTimeoutSec: 600,
    metadata: {},
  });
  assert.equal(
    parseHarborToml('version = "1.0"\n[environment]\nmemory = "2G"\nstorage = "512M"\n', "t")
      .environment.memoryMb,
    2048,
    "the deprecated size strings still work, as in Harbor",
  );
  await using dir = await scratchDir("harbor");
  const folder = await harborFolder(dir.path, "defaults", { "task.toml": 'version = "1.0"\n' });
  const task = await loadHarborTask(folder);
  assert.equal(task.manifest.category, "harbor");
  assert.equal(task.manifest.limits.timeout_s, 600);
  assert.equal(task.manifest.success.timeout_s, 600);
});

Deno.test("the id is the folder name normalised; a name with no letter or digit is refused", async () => {
  await using dir = await scratchDir("harbor");
  const folder = await harborFolder(dir.path, "__Fix_The  Build.v2__");
  assert.equal((await loadHarborTask(folder)).id, "fix-the-build-v2");
  const nameless = await harborFolder(dir.path, "___");
  assert.match(
    await loadProblems(nameless),
    /___: the folder name '___' has no letter or digit .*Fix: rename the folder/,
  );
});

Deno.test("a TOML syntax error names the line and column", () => {
  assert.match(
    tomlProblems('version = "1.0"\n[agent]\ntimeout_sec = 12 0\n'),
    /^t\/task\.toml:3:\d+: not valid TOML: .*Fix: correct the TOML syntax/,
  );
  assert.match(
    tomlProblems('version = "1.0"\nversion = "1.1"\n'),
    /^t\/task\.toml:2:1: not valid TOML/,
  );
});

Deno.test("a missing or other-major schema version is refused with the fix", () => {
  assert.match(
    tomlProblems("[agent]\ntimeout_sec = 10\n"),
    /t\/task\.toml: schema_version: is missing.*Fix: add schema_version = "1\.1" \(or version = "1\.0"\)/,
  );
  assert.match(
    tomlProblems('schema_version = "2.0"\n'),
    /schema_version: '2\.0' is not a schema version Verdict reads \(Harbor's task format 1\.x\)/,
  );
  assert.match(tomlProblems("version = 1.0\n"), /version: expected a string, got number 1/);
});

Deno.test("wrong types name the field and the fix, every one at once", () => {
  const message = tomlProblems(
    [
      'version = "1.0"',
      "metadata = 3",
      "[verifier]",
      'timeout_sec = "ten"',
      'env = { A = 1, B = "ok" }',
      "[agent]",
      "timeout_sec = -5",
      "[environment]",
      "cpus = 1.5",
      "build_timeout_sec = 100000",
      'docker_image = "-rm"',
      "",
    ].join("\n"),
  );
  const lines = message.split("\n");
  assert.equal(lines.length, 7, message);
  assert.match(
    message,
    /t\/task\.toml: metadata: expected a table, got number 3\. Fix: write a table/,
  );
  assert.match(message, /verifier\.timeout_sec: expected a number, got string "ten"/);
  assert.match(message, /verifier\.env\.A: expected a string, got number 1/);
  assert.match(message, /agent\.timeout_sec: must be above 0/);
  assert.match(message, /environment\.cpus: expected a whole number/);
  assert.match(message, /environment\.build_timeout_sec: must be at most 86400/);
  assert.match(message, /environment\.docker_image: is not a Docker image reference/);
});

Deno.test("an unknown key in [verifier], [agent], [environment] or at the top names the nearest known one", () => {
  const message = tomlProblems(
    [
      'version = "1.0"',
      "[verifier]",
      "timeout_secs = 10",
      "[agent]",
      "timout_sec = 10",
      "[environment]",
      'docker_imag = "x"',
      "[enviroment]",
      "cpus = 1",
      "",
    ].join("\n"),
  );
  assert.match(message, /verifier\.timeout_secs: unknown key\. Fix: did you mean 'timeout_sec'\?/);
  assert.match(message, /agent\.timout_sec: unknown key\. Fix: did you mean 'timeout_sec'\?/);
  assert.match(
    message,
    /environment\.docker_imag: unknown key\. Fix: did you mean 'docker_image'\?/,
  );
  assert.match(
    message,
    /t\/task\.toml: enviroment: unknown key\. Fix: did you mean 'environment'\?/,
  );
});

Deno.test("GPUs, network access and other settings Verdict cannot honour are refused by name", () => {
  const cases: [string, RegExp][] = [
    ["[environment]\ngpus = 2", /environment\.gpus: asks for 2 GPUs; Verdict runs no GPUs/],
    [
      '[environment]\ngpu_types = ["H100"]',
      /environment\.gpu_types: asks for GPU types H100; Verdict runs no GPUs/,
    ],
    [
      "[environment]\nallow_internet = true",
      /environment\.allow_internet: true asks for internet access, and Verdict's trial container has no network\. Fix: set allow_internet = false/,
    ],
    [
      '[environment]\nnetwork_mode = "public"',
      /environment\.network_mode: 'public' asks for network access/,
    ],
    ['[agent]\nallowed_hosts = ["pypi.org"]', /agent\.allowed_hosts: allows pypi\.org/],
    [
      '[environment]\nenv = { KEY = "${KEY}" }',
      /environment\.env: asks for KEY from the host/,
    ],
    ['[environment]\nos = "windows"', /environment\.os: asks for Windows containers/],
    ['[environment.tpu]\ntype = "v6e"', /environment\.tpu: asks for a TPU slice/],
    [
      '[[environment.mcp_servers]]\nname = "m"\nurl = "http://m:8000/mcp"',
      /environment\.mcp_servers: names MCP servers/,
    ],
    [
      '[environment.healthcheck]\ncommand = "true"',
      /environment\.healthcheck: asks for a healthcheck/,
    ],
    ['[verifier]\nenvironment_mode = "separate"', /verifier\.environment_mode: 'separate'/],
    ['[agent]\nuser = "agent"', /agent\.user: names the user the agent runs as/],
    ['[solution]\nenv = { TOKEN = "x" }', /solution\.env: sets TOKEN for solve\.sh/],
    ['[[steps]]\nname = "one"', /steps: splits the task into steps/],
  ];
  for (const [toml, expected] of cases) {
    assert.match(tomlProblems(`version = "1.0"\n${toml}\n`), expected, toml);
  }
});

Deno.test("the folder's problems: missing files, no environment, a Compose file, all at once", async () => {
  await using dir = await scratchDir("harbor");
  const noTest = await harborFolder(dir.path, "no-test", { "tests/test.sh": null });
  assert.match(
    await loadProblems(noTest),
    /no-test\/tests\/test\.sh: file is missing\. Fix: add tests\/test\.sh, the verifier/,
  );
  const noInstruction = await harborFolder(dir.path, "no-instruction", { "instruction.md": null });
  assert.match(
    await loadProblems(noInstruction),
    /no-instruction\/instruction\.md: file is missing\. Fix: write what the agent is told/,
  );
  const noEnvironment = await harborFolder(dir.path, "no-env", {
    "environment/Dockerfile": null,
    "environment/data.txt": null,
  });
  assert.match(
    await loadProblems(noEnvironment),
    /no-env\/task\.toml: environment\.docker_image: is not set, and there is no environment\/Dockerfile: the task has no environment\. Fix: add environment\/Dockerfile/,
  );
  const all = await harborFolder(dir.path, "all", {
    "instruction.md": null,
    "tests/test.sh": null,
    "task.toml": 'version = "1.0"\n[environment]\ngpus = 1\n',
  });
  const message = await loadProblems(all);
  assert.equal(message.split("\n").length, 3, message);
});

Deno.test("a compose task is refused by name (fixture)", async () => {
  const message = await loadProblems(join(FIXTURES, "compose-sidecar"));
  assert.match(
    message,
    /compose-sidecar\/environment\/docker-compose\.yaml: is a Docker Compose file \(services beside the task's container\); Verdict runs one container per trial\. Fix: fold what the task needs into environment\/Dockerfile/,
  );
  const result = await runVerdictInProcess(["tasks", "list", join(FIXTURES, "gpu-task")]);
  assert.equal(result.code, 2, result.stderr);
  assert.match(
    result.stderr,
    /gpu-task\/task\.toml: environment\.gpus: asks for 1 GPU; Verdict runs no GPUs/,
  );
});

Deno.test("a symlink out of the Harbor task folder is refused, naming it", async () => {
  await using dir = await scratchDir("harbor-links");
  const outside = join(dir.path, "outside.txt");
  await Deno.writeTextFile(outside, "HOST SECRET\n");
  const cases: [string, string, string, RegExp][] = [
    [
      "link-toml",
      "task.toml",
      outside,
      /link-toml\/task\.toml: is a symlink that leads to .*outside\.txt, outside the task folder/,
    ],
    [
      "link-instruction",
      "instruction.md",
      outside,
      /link-instruction\/instruction\.md: is a symlink that leads to .*outside\.txt, outside the task folder/,
    ],
    [
      "link-test",
      "tests/test.sh",
      "/bin/sh",
      /link-test\/tests\/test\.sh: is a symlink that leads to \/\S+, outside tests\/\. Fix: copy it into tests\//,
    ],
    [
      "link-dockerfile",
      "environment/Dockerfile",
      outside,
      /link-dockerfile\/environment\/Dockerfile: is a symlink that leads to .*outside\.txt, outside environment\//,
    ],
  ];
  for (const [name, path, target, expected] of cases) {
    const folder = await harborFolder(dir.path, name);
    await Deno.remove(join(folder, path));
    await Deno.symlink(target, join(folder, path));
    const message = await loadProblems(folder);
    assert.match(message, expected, name);
    assert.doesNotMatch(message, /HOST SECRET/);
  }
});

Deno.test("a folder holding both task.yaml and task.toml is refused, naming both", async () => {
  await using dir = await scratchDir("harbor");
  const folder = await harborFolder(dir.path, "both", {
    "task.yaml": minimalTask("both")["task.yaml"],
  });
  const result = await runVerdictInProcess(["tasks", "list", folder]);
  assert.equal(result.code, 2, result.stderr);
  assert.match(
    result.stderr,
    /both: holds both task\.yaml \(a Verdict task\) and task\.toml \(a Harbor task\)\. Fix: keep one/,
  );
});

Deno.test("a folder of Verdict and Harbor tasks loads as one suite; duplicate ids name each manifest", async () => {
  await using dir = await scratchDir("harbor-suite");
  const suite = join(dir.path, "suite");
  await writeFiles(join(suite, "verdict-task"), minimalTask("verdict-task"));
  await harborFolder(suite, "harbor-task");
  const loaded = await loadSuite([suite]);
  assert.deepEqual(
    loaded.tasks.map((task) => [task.id, task.harbor === undefined ? "verdict" : "harbor"]),
    [["harbor-task", "harbor"], ["verdict-task", "verdict"]],
  );
  const listed = await runVerdictInProcess(["tasks", "list", suite]);
  assert.equal(listed.code, 0, listed.stderr);
  assert.match(listed.stdout, /harbor-task/);

  const clash = join(dir.path, "clash");
  await writeFiles(join(clash, "a-same"), minimalTask("same"));
  await harborFolder(clash, "same");
  const result = await runVerdictInProcess(["tasks", "list", clash]);
  assert.equal(result.code, 2, result.stderr);
  assert.match(
    result.stderr,
    /clash\/same\/task\.toml: 'same' is already the id of .*clash\/a-same\/task\.yaml \(a Harbor task's id is its folder's name\)\. Fix: rename one of the folders/,
  );
  const nothing = await runVerdictInProcess([
    "tasks",
    "list",
    join(dir.path, "suite", "verdict-task", "tests"),
  ]);
  assert.equal(nothing.code, 2);
  assert.match(nothing.stderr, /no task\.yaml or task\.toml in/);
});
